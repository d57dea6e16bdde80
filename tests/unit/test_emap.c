/*
 * The kernel module's in-memory extent map (kernel/extent_map.c), built
 * here over malloc: random inserts, deletes and searches against a flat
 * array doing the same, the chunk table checked after every step, and
 * allocation failures that must leave the map as it was.
 */
#include "unit.h"
#include "emap_shim.h"
#include "../../kernel/extent_map.c"

int emap_shim_fail_after = -1;

struct ref {
	struct stalefs_ext *e;
	u32 n, cap;
};

static void ref_insert(struct ref *r, u32 i, const struct stalefs_ext *e)
{
	if (r->n == r->cap) {
		r->cap = r->cap ? 2 * r->cap : 64;
		r->e = realloc(r->e, r->cap * sizeof(*r->e));
		ck_assert_ptr_nonnull(r->e);
	}
	memmove(&r->e[i + 1], &r->e[i], (r->n - i) * sizeof(*r->e));
	r->e[i] = *e;
	r->n++;
}

static void ref_delete(struct ref *r, u32 i, u32 count)
{
	memmove(&r->e[i], &r->e[i + count], (r->n - i - count) * sizeof(*r->e));
	r->n -= count;
}

/* The map holds what the reference holds, and its table is consistent. */
static void check_same(const struct stalefs_emap *m, const struct ref *r)
{
	u32 i, c, sum = 0;

	ck_assert_uint_eq(m->n, r->n);
	for (c = 0; c < m->nchunks; c++) {
		ck_assert_uint_eq(m->base[c], sum);
		ck_assert_uint_gt(m->c[c]->n, 0);
		ck_assert_uint_le(m->c[c]->n, m->c[c]->cap);
		ck_assert_uint_le(m->c[c]->cap, EMAP_CHUNK);
		sum += m->c[c]->n;
	}
	ck_assert_uint_eq(sum, m->n);
	for (i = 0; i < r->n; i++) {
		const struct stalefs_ext *a = stalefs_emap_at(m, i), *b = &r->e[i];

		ck_assert_msg(a->lblk == b->lblk && a->len == b->len && a->pblk == b->pblk &&
			      a->flags == b->flags, "extent %u differs", i);
	}
}

static u32 ref_search(const struct ref *r, u32 lblk)
{
	u32 i;

	for (i = 0; i < r->n; i++)
		if ((u64)r->e[i].lblk + r->e[i].len > lblk)
			return i;
	return r->n;
}

static u64 rng_next(u64 *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 7;
	*s ^= *s << 17;
	return *s;
}

/* Extents are kept sorted: index i holds lblk 10*i-ish, renumbered after each step. */
static void renumber(struct stalefs_emap *m, struct ref *r)
{
	u32 i;

	for (i = 0; i < r->n; i++) {
		r->e[i].lblk = 10 * i;
		r->e[i].len = 5;
		stalefs_emap_at(m, i)->lblk = 10 * i;
		stalefs_emap_at(m, i)->len = 5;
	}
}

START_TEST(random_against_array)
{
	struct stalefs_emap m = { 0 };
	struct ref r = { 0 };
	u64 rng = 0x9E3779B97F4A7C15ULL + (u64)_i;
	int step;

	for (step = 0; step < 20000; step++) {
		u64 x = rng_next(&rng);
		u32 op = (u32)(x % 10);

		if (op < 6 || r.n == 0) {
			struct stalefs_ext e = { .pblk = x >> 16, .flags = (u16)(x & 3) };
			u32 i = r.n ? (u32)((x >> 8) % (r.n + 1)) : 0;

			/* Most inserts near the end, as appends are; some anywhere. */
			if (op == 0 && r.n)
				i = r.n;
			ck_assert_int_eq(stalefs_emap_insert(&m, i, &e), 0);
			ref_insert(&r, i, &e);
		} else if (op < 9) {
			u32 i = (u32)((x >> 8) % r.n);
			u32 count = 1 + (u32)((x >> 40) % (op == 8 ? 300 : 3));

			if (count > r.n - i)
				count = r.n - i;
			stalefs_emap_delete(&m, i, count);
			ref_delete(&r, i, count);
		}
		renumber(&m, &r);
		if (step % 97 == 0 || r.n < 300)
			check_same(&m, &r);
		if (r.n) {
			u32 lblk = (u32)((x >> 20) % (10 * r.n + 20));

			ck_assert_uint_eq(stalefs_emap_search(&m, lblk), ref_search(&r, lblk));
		}
	}
	check_same(&m, &r);
	/* Everything goes: no chunk is left behind. */
	stalefs_emap_delete(&m, 0, m.n);
	ck_assert_uint_eq(m.n, 0);
	ck_assert_uint_eq(m.nchunks, 0);
	stalefs_emap_free(&m);
	free(r.e);
}
END_TEST

/* Appends (loading a tree) fill chunks to the brim, not half. */
START_TEST(appends_fill_chunks)
{
	struct stalefs_emap m = { 0 };
	u32 i;

	for (i = 0; i < 10 * EMAP_CHUNK; i++) {
		struct stalefs_ext e = { .lblk = 2 * i, .len = 1, .pblk = 1000 + i };

		ck_assert_int_eq(stalefs_emap_insert(&m, m.n, &e), 0);
	}
	ck_assert_uint_eq(m.nchunks, 10);
	for (i = 0; i < 10 * EMAP_CHUNK; i++)
		ck_assert_uint_eq(stalefs_emap_at(&m, i)->lblk, 2 * i);
	ck_assert_uint_eq(stalefs_emap_search(&m, 2 * 500 + 1), 501);
	ck_assert_uint_eq(stalefs_emap_search(&m, 2 * 10 * EMAP_CHUNK), m.n);
	stalefs_emap_free(&m);
}
END_TEST

/* An allocation that fails leaves the map exactly as it was. */
START_TEST(enomem_changes_nothing)
{
	struct stalefs_emap m = { 0 };
	struct ref r = { 0 };
	u64 rng = 42;
	int step, failures = 0;

	for (step = 0; step < 3000; step++) {
		u64 x = rng_next(&rng);
		struct stalefs_ext e = { .pblk = x >> 16 };
		u32 i = r.n ? (u32)((x >> 8) % (r.n + 1)) : 0;

		emap_shim_fail_after = (x >> 60) < 3 ? 0 : -1;
		if (stalefs_emap_insert(&m, i, &e) == 0) {
			ref_insert(&r, i, &e);
		} else {
			failures++;
		}
		emap_shim_fail_after = -1;
		renumber(&m, &r);
		check_same(&m, &r);
	}
	ck_assert_int_gt(failures, 0);
	stalefs_emap_free(&m);
	free(r.e);
}
END_TEST

Suite *emap_suite(void)
{
	Suite *s = suite_create("emap");
	TCase *tc = tcase_create("emap");

	tcase_set_timeout(tc, 60);
	tcase_add_loop_test(tc, random_against_array, 0, 4);
	tcase_add_test(tc, appends_fill_chunks);
	tcase_add_test(tc, enomem_changes_nothing);
	suite_add_tcase(s, tc);
	return s;
}
