// SPDX-License-Identifier: GPL-2.0
/* temporary: commands not written yet */
#include "debugfs.h"
#define STUB(n) DBG_CMD(n) { (void)argc; (void)sci_idx; (void)info; dbg_msg(argv[0], "not implemented yet"); }
STUB(do_block_dump)
STUB(do_icheck)
STUB(do_ncheck)
STUB(do_lsstale)
STUB(do_cat)
STUB(do_dump)
STUB(do_rdump)
STUB(do_lsdel)
STUB(do_undel)
STUB(do_metadump)
errcode_t dbg_metadump_restore(const char *dump, const char *image) { (void)dump; (void)image; return STALEFS_ERR_METADUMP; }
