/* The unit test runner: every suite, Check's summary line at the end. */
#include "unit.h"

int main(void)
{
	SRunner *sr;
	int failed;

	initialize_slfs_error_table();
	sr = srunner_create(layout_suite());
	srunner_add_suite(sr, checksum_suite());
	srunner_add_suite(sr, verify_suite());
	srunner_add_suite(sr, geometry_suite());
	srunner_add_suite(sr, group_meta_suite());
	srunner_add_suite(sr, extent_rules_suite());
	srunner_add_suite(sr, dir_rules_suite());
	srunner_add_suite(sr, xattr_rules_suite());
	srunner_add_suite(sr, alloc_suite());
	srunner_add_suite(sr, extent_list_suite());
	srunner_add_suite(sr, extent_tree_suite());
	srunner_add_suite(sr, dir_suite());
	srunner_add_suite(sr, file_suite());
	srunner_add_suite(sr, mkfs_lib_suite());
	srunner_add_suite(sr, open_suite());
	srunner_add_suite(sr, helpers_suite());
	srunner_add_suite(sr, journal_format_suite());
	srunner_add_suite(sr, journal_replay_suite());
	srunner_add_suite(sr, overlay_suite());
	srunner_add_suite(sr, io_region_suite());
	srunner_add_suite(sr, txn_suite());
	srunner_add_suite(sr, emap_suite());
	srunner_add_suite(sr, orphan_suite());
	srunner_add_suite(sr, tune_suite());
	srunner_add_suite(sr, xattr_suite());
	srunner_add_suite(sr, hash_suite());
	srunner_add_suite(sr, timeline_suite());
	srunner_add_suite(sr, jhistory_suite());
	srunner_add_suite(sr, partition_suite());
	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? 1 : 0;
}
