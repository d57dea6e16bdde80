// SPDX-License-Identifier: GPL-2.0
/* temporary: commands not written yet */
#include "debugfs.h"
#define STUB(n) DBG_CMD(n) { (void)argc; (void)sci_idx; (void)info; dbg_msg(argv[0], "not implemented yet"); }
STUB(do_metadump)
errcode_t dbg_metadump_restore(const char *dump, const char *image) { (void)dump; (void)image; return STALEFS_ERR_METADUMP; }
