/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What kernel/extent_map.c uses of the kernel, for building it in the unit
 * tests: the allocators (over malloc, with a switch that makes the next
 * allocations fail, to test the ENOMEM paths) and a few helpers.
 */
#ifndef STALEFS_EMAP_SHIM_H
#define STALEFS_EMAP_SHIM_H

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "stalefs_compat.h"

extern int emap_shim_fail_after;	/* <0: never; else allocations left before failing */

static inline void *emap_shim_alloc(size_t n)
{
	if (emap_shim_fail_after == 0)
		return NULL;
	if (emap_shim_fail_after > 0)
		emap_shim_fail_after--;
	return malloc(n);
}

static inline void *emap_shim_realloc(void *p, size_t n)
{
	if (emap_shim_fail_after == 0)
		return NULL;
	if (emap_shim_fail_after > 0)
		emap_shim_fail_after--;
	return realloc(p, n);
}

#define GFP_NOFS 0
#define kmalloc(n, gfp) emap_shim_alloc(n)
#define krealloc(p, n, gfp) emap_shim_realloc(p, n)
#define kvmalloc_array(n, size, gfp) emap_shim_alloc((size_t)(n) * (size))
#define kfree(p) free(p)
#define kvfree(p) free(p)
#define struct_size(p, member, n) (sizeof(*(p)) + sizeof((p)->member[0]) * (size_t)(n))
#define min(a, b) ((a) < (b) ? (a) : (b))
#define min_t(t, a, b) ((t)(a) < (t)(b) ? (t)(a) : (t)(b))
#define max_t(t, a, b) ((t)(a) > (t)(b) ? (t)(a) : (t)(b))

#endif
