/*
 * Extent lists, the in-memory mapping the library edits: set (split in the
 * middle, replace across extents), remove, flag changes, merge rules (only
 * contiguous, same flags, up to 32768 blocks), and a seeded random sequence
 * of operations checked block by block against a plain array model.
 */
#include "unit.h"

#define X(lb, ln, pb, fl) { (lb), (ln), (pb), (fl) }

static void expect(const struct stalefs_extent_list *l, const struct stalefs_ext *want, u32 n)
{
	u32 i;

	ck_assert_msg(l->count == n, "list has %u extents, expected %u", l->count, n);
	for (i = 0; i < n; i++)
		ck_assert_msg(l->ext[i].lblk == want[i].lblk && l->ext[i].len == want[i].len &&
				      l->ext[i].pblk == want[i].pblk && l->ext[i].flags == want[i].flags,
			      "extent %u is (%u,%u,%llu,%u), expected (%u,%u,%llu,%u)", i, l->ext[i].lblk,
			      l->ext[i].len, (unsigned long long)l->ext[i].pblk, l->ext[i].flags, want[i].lblk,
			      want[i].len, (unsigned long long)want[i].pblk, want[i].flags);
}

#define EXPECT(l, ...) do { \
	const struct stalefs_ext w_[] = { __VA_ARGS__ }; \
	expect((l), w_, sizeof(w_) / sizeof(w_[0])); \
} while (0)

START_TEST(set_splits_in_the_middle)
{
	struct stalefs_extent_list l = { 0 }, old = { 0 };

	ck_ok(stalefs_extent_list_set(&l, 0, 100, 1000, 0, NULL));
	EXPECT(&l, X(0, 100, 1000, 0));
	ck_ok(stalefs_extent_list_set(&l, 40, 10, 5000, 0, &old));
	EXPECT(&l, X(0, 40, 1000, 0), X(40, 10, 5000, 0), X(50, 50, 1050, 0));
	EXPECT(&old, X(40, 10, 1040, 0));
	stalefs_extent_list_free(&l);
	stalefs_extent_list_free(&old);
}
END_TEST

START_TEST(set_across_extents)
{
	struct stalefs_extent_list l = { 0 }, old = { 0 };

	ck_ok(stalefs_extent_list_append(&l, 0, 10, 100, 0));
	ck_ok(stalefs_extent_list_append(&l, 20, 10, 200, STALEFS_EXT_UNWRITTEN));
	ck_ok(stalefs_extent_list_append(&l, 40, 10, 300, 0));
	ck_ok(stalefs_extent_list_set(&l, 5, 40, 900, STALEFS_EXT_STALE, &old));
	EXPECT(&l, X(0, 5, 100, 0), X(5, 40, 900, STALEFS_EXT_STALE), X(45, 5, 305, 0));
	EXPECT(&old, X(5, 5, 105, 0), X(20, 10, 200, STALEFS_EXT_UNWRITTEN), X(40, 5, 300, 0));
	/* Appending out of order is refused. */
	ck_err(stalefs_extent_list_append(&l, 49, 1, 5, 0), STALEFS_ERR_EXTENT_CORRUPT);
	ck_err(stalefs_extent_list_set(&l, 0xFFFFFFF0u, 0x10, 5, 0, NULL), STALEFS_ERR_FILE_TOO_BIG);
	ck_ok(stalefs_extent_list_set(&l, 0xFFFFFFF0u, 0xF, 5, 0, NULL));
	ck_assert_uint_eq(l.count, 4);
	stalefs_extent_list_free(&l);
	stalefs_extent_list_free(&old);
}
END_TEST

START_TEST(remove_pieces)
{
	struct stalefs_extent_list l = { 0 }, old = { 0 };

	ck_ok(stalefs_extent_list_set(&l, 10, 100, 1000, 0, NULL));
	ck_ok(stalefs_extent_list_remove(&l, 50, 10, &old));
	EXPECT(&l, X(10, 40, 1000, 0), X(60, 50, 1050, 0));
	EXPECT(&old, X(50, 10, 1040, 0));
	/* Removing a hole, or nothing, changes nothing. */
	ck_ok(stalefs_extent_list_remove(&l, 50, 10, NULL));
	ck_ok(stalefs_extent_list_remove(&l, 0, 0, NULL));
	EXPECT(&l, X(10, 40, 1000, 0), X(60, 50, 1050, 0));
	/* Across both, trimming the edges; the pieces join what old already holds, in order. */
	ck_ok(stalefs_extent_list_remove(&l, 45, 20, &old));
	EXPECT(&l, X(10, 35, 1000, 0), X(65, 45, 1055, 0));
	EXPECT(&old, X(45, 5, 1035, 0), X(50, 10, 1040, 0), X(60, 5, 1050, 0));
	/* To the end of the file space. */
	ck_ok(stalefs_extent_list_remove(&l, 20, 0xFFFFFFFFu - 20, NULL));
	EXPECT(&l, X(10, 10, 1000, 0));
	stalefs_extent_list_free(&l);
	stalefs_extent_list_free(&old);
}
END_TEST

START_TEST(change_flags_in_the_middle)
{
	struct stalefs_extent_list l = { 0 };

	ck_ok(stalefs_extent_list_set(&l, 0, 100, 1000, STALEFS_EXT_UNWRITTEN, NULL));
	ck_ok(stalefs_extent_list_change_flags(&l, 40, 10, STALEFS_EXT_UNWRITTEN, 0));
	EXPECT(&l, X(0, 40, 1000, STALEFS_EXT_UNWRITTEN), X(40, 10, 1040, 0), X(50, 50, 1050, STALEFS_EXT_UNWRITTEN));
	/* Unwritten to stale in a range spanning all three. */
	ck_ok(stalefs_extent_list_change_flags(&l, 30, 30, STALEFS_EXT_UNWRITTEN, STALEFS_EXT_STALE));
	EXPECT(&l, X(0, 30, 1000, STALEFS_EXT_UNWRITTEN), X(30, 30, 1030, STALEFS_EXT_STALE),
	       X(60, 40, 1060, STALEFS_EXT_UNWRITTEN));
	/* Back to one extent: the pieces merge again. */
	ck_ok(stalefs_extent_list_change_flags(&l, 0, 100, STALEFS_EXT_STALE, STALEFS_EXT_UNWRITTEN));
	EXPECT(&l, X(0, 100, 1000, STALEFS_EXT_UNWRITTEN));
	/* Holes in the range stay holes. */
	ck_ok(stalefs_extent_list_change_flags(&l, 90, 100, STALEFS_EXT_UNWRITTEN, 0));
	EXPECT(&l, X(0, 90, 1000, STALEFS_EXT_UNWRITTEN), X(90, 10, 1090, 0));
	stalefs_extent_list_free(&l);
}
END_TEST

START_TEST(merge_rules)
{
	struct stalefs_extent_list l = { 0 };

	/* Adjacent identical extents merge. */
	ck_ok(stalefs_extent_list_append(&l, 0, 10, 100, 0));
	ck_ok(stalefs_extent_list_append(&l, 10, 10, 110, 0));
	ck_ok(stalefs_extent_list_append(&l, 20, 5, 120, 0));
	stalefs_extent_list_merge(&l);
	EXPECT(&l, X(0, 25, 100, 0));
	stalefs_extent_list_free(&l);

	/* Different flags, a physical gap, a logical gap: no merge. */
	ck_ok(stalefs_extent_list_append(&l, 0, 10, 100, 0));
	ck_ok(stalefs_extent_list_append(&l, 10, 10, 110, STALEFS_EXT_UNWRITTEN));
	ck_ok(stalefs_extent_list_append(&l, 20, 10, 121, STALEFS_EXT_UNWRITTEN));
	ck_ok(stalefs_extent_list_append(&l, 31, 10, 131, STALEFS_EXT_UNWRITTEN));
	stalefs_extent_list_merge(&l);
	EXPECT(&l, X(0, 10, 100, 0), X(10, 10, 110, STALEFS_EXT_UNWRITTEN), X(20, 10, 121, STALEFS_EXT_UNWRITTEN),
	       X(31, 10, 131, STALEFS_EXT_UNWRITTEN));
	stalefs_extent_list_free(&l);

	/* Up to 32768 blocks and no further. */
	ck_ok(stalefs_extent_list_append(&l, 0, 32767, 100, 0));
	ck_ok(stalefs_extent_list_append(&l, 32767, 1, 100 + 32767, 0));
	ck_ok(stalefs_extent_list_append(&l, 32768, 1, 100 + 32768, 0));
	stalefs_extent_list_merge(&l);
	EXPECT(&l, X(0, 32768, 100, 0), X(32768, 1, 100 + 32768, 0));
	stalefs_extent_list_free(&l);

	/* set() merges with both neighbours when it fills the gap exactly. */
	ck_ok(stalefs_extent_list_set(&l, 0, 10, 500, STALEFS_EXT_STALE, NULL));
	ck_ok(stalefs_extent_list_set(&l, 20, 10, 520, STALEFS_EXT_STALE, NULL));
	ck_ok(stalefs_extent_list_set(&l, 10, 10, 510, STALEFS_EXT_STALE, NULL));
	EXPECT(&l, X(0, 30, 500, STALEFS_EXT_STALE));
	stalefs_extent_list_free(&l);
}
END_TEST

START_TEST(find)
{
	struct stalefs_extent_list l = { 0 };
	u32 idx;

	ck_assert(!stalefs_extent_list_find(&l, 5, &idx));
	ck_assert_uint_eq(idx, 0);
	ck_ok(stalefs_extent_list_append(&l, 10, 10, 100, 0));
	ck_ok(stalefs_extent_list_append(&l, 30, 10, 300, 0));
	ck_assert(!stalefs_extent_list_find(&l, 9, &idx));
	ck_assert_uint_eq(idx, 0);
	ck_assert(stalefs_extent_list_find(&l, 10, &idx));
	ck_assert_uint_eq(idx, 0);
	ck_assert(stalefs_extent_list_find(&l, 19, &idx));
	ck_assert_uint_eq(idx, 0);
	ck_assert(!stalefs_extent_list_find(&l, 20, &idx));
	ck_assert_uint_eq(idx, 1);
	ck_assert(stalefs_extent_list_find(&l, 39, &idx));
	ck_assert_uint_eq(idx, 1);
	ck_assert(!stalefs_extent_list_find(&l, 40, &idx));
	ck_assert_uint_eq(idx, 2);
	ck_assert(!stalefs_extent_list_find(&l, 0xFFFFFFFFu, &idx));
	ck_assert_uint_eq(idx, 2);
	stalefs_extent_list_free(&l);
}
END_TEST

#define SPACE 3000
struct model {
	u64 pblk[SPACE];	/* 0: hole */
	u16 flags[SPACE];
};

static void check_against_model(const struct stalefs_extent_list *l, const struct model *m)
{
	u32 i, b, covered = 0, mapped = 0;

	for (i = 0; i < l->count; i++) {
		const struct stalefs_ext *e = &l->ext[i];

		hot_assert(e->len > 0, "extent %u is empty", i);
		if (i > 0)
			hot_assert(l->ext[i - 1].lblk + l->ext[i - 1].len <= e->lblk, "extents %u and %u overlap or unsorted",
				      i - 1, i);
		for (b = e->lblk; b < e->lblk + e->len; b++) {
			hot_assert(b < SPACE, "block %u outside the space", b);
			hot_assert(m->pblk[b] == e->pblk + (b - e->lblk) && m->flags[b] == e->flags,
				      "block %u maps to %llu/%u, model says %llu/%u", b,
				      (unsigned long long)(e->pblk + (b - e->lblk)), e->flags,
				      (unsigned long long)m->pblk[b], m->flags[b]);
			covered++;
		}
	}
	for (b = 0; b < SPACE; b++)
		mapped += m->pblk[b] != 0;
	hot_assert(covered == mapped, "%u blocks mapped, model has %u", covered, mapped);
}

START_TEST(random_against_model)
{
	struct stalefs_extent_list l = { 0 }, old = { 0 };
	static struct model m;
	u64 rng = 0x5EED + (u64)_i;
	u32 op, b;

	memset(&m, 0, sizeof(m));
	for (op = 0; op < 3000; op++) {
		u32 lblk = (u32)(unit_rand(&rng) % SPACE);
		u32 len = 1 + (u32)(unit_rand(&rng) % 200);
		u32 kind = (u32)(unit_rand(&rng) % 4);

		if (lblk + len > SPACE)
			len = SPACE - lblk;
		if (kind <= 1) {
			/* Physical blocks sometimes continue the neighbour so merges happen. */
			u64 pblk = unit_rand(&rng) % 2 ? 100000 + lblk : 1 + unit_rand(&rng) % 90000;
			u16 flags = (u16)(unit_rand(&rng) % 3);
			u64 freed = 0, want_freed = 0;

			for (b = lblk; b < lblk + len; b++)
				want_freed += m.pblk[b] != 0;
			hot_assert(stalefs_extent_list_set(&l, lblk, len, pblk, flags, &old) == 0, "set failed");
			for (b = 0; b < old.count; b++)
				freed += old.ext[b].len;
			hot_assert(freed == want_freed, "set returned %llu old blocks, expected %llu",
				   (unsigned long long)freed, (unsigned long long)want_freed);
			stalefs_extent_list_free(&old);
			for (b = lblk; b < lblk + len; b++) {
				m.pblk[b] = pblk + (b - lblk);
				m.flags[b] = flags;
			}
		} else if (kind == 2) {
			hot_assert(stalefs_extent_list_remove(&l, lblk, len, NULL) == 0, "remove failed");
			for (b = lblk; b < lblk + len; b++)
				m.pblk[b] = m.flags[b] = 0;
		} else {
			u16 clear = (u16)(unit_rand(&rng) % 4), set = (u16)(unit_rand(&rng) % 3);

			hot_assert(stalefs_extent_list_change_flags(&l, lblk, len, clear, set) == 0, "change_flags failed");
			for (b = lblk; b < lblk + len; b++)
				if (m.pblk[b])
					m.flags[b] = (u16)((m.flags[b] & ~clear) | set);
		}
		check_against_model(&l, &m);
	}
	/* After a merge nothing mergeable is left next to each other. */
	stalefs_extent_list_merge(&l);
	check_against_model(&l, &m);
	for (b = 1; b < l.count; b++) {
		const struct stalefs_ext *a = &l.ext[b - 1], *c = &l.ext[b];

		ck_assert(!(a->lblk + a->len == c->lblk && a->pblk + a->len == c->pblk && a->flags == c->flags &&
			    a->len + c->len <= STALEFS_EXT_MAX_LEN));
	}
	stalefs_extent_list_free(&l);
}
END_TEST

Suite *extent_list_suite(void)
{
	Suite *s = suite_create("extent_list");
	TCase *tc = tcase_create("extent_list");

	tcase_add_test(tc, set_splits_in_the_middle);
	tcase_add_test(tc, set_across_extents);
	tcase_add_test(tc, remove_pieces);
	tcase_add_test(tc, change_flags_in_the_middle);
	tcase_add_test(tc, merge_rules);
	tcase_add_test(tc, find);
	tcase_add_loop_test(tc, random_against_model, 0, 4);
	suite_add_tcase(s, tc);
	return s;
}
