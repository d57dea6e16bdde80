// SPDX-License-Identifier: GPL-2.0
/* Who owns what: icheck (block -> inode) and ncheck (inode -> paths). */
#include <stdlib.h>
#include "debugfs.h"
#include "scan.h"

struct icheck_ctx {
	u64 *blocks;
	u32 *owner;		/* 0: not found yet */
	bool *is_node;		/* the block is an extent tree node of its owner */
	int n;
	u32 cur;
};

static void icheck_match(struct icheck_ctx *c, u64 start, u64 len, bool node)
{
	int i;

	for (i = 0; i < c->n; i++)
		if (!c->owner[i] && c->blocks[i] >= start && c->blocks[i] - start < len) {
			c->owner[i] = c->cur;
			c->is_node[i] = node;
		}
}

static int icheck_entry(stalefs_fs *fs, const struct stalefs_xentry *e, void *priv)
{
	(void)fs;
	if (!e->is_index && e->len <= STALEFS_EXT_MAX_LEN)
		icheck_match(priv, e->pblk, e->len, false);
	return 0;
}

static int icheck_tree_block(stalefs_fs *fs, const struct stalefs_xnode *n, void *priv)
{
	(void)fs;
	if (n->level && n->eh)	/* a tree block that was read */
		icheck_match(priv, n->block, 1, true);
	return 0;
}

static int icheck_inode(u32 ino, const struct stalefs_inode *inode, int rule, bool in_use, void *priv)
{
	struct icheck_ctx *c = priv;

	(void)rule;
	if (!in_use || !stalefs_inode_has_extents(inode))
		return 0;
	c->cur = ino;
	stalefs_extent_scan(dbg.fs, ino, inode, &(struct stalefs_xscan_ops){ .entry = icheck_entry, .node = icheck_tree_block }, c);
	return 0;
}

DBG_CMD(do_icheck)
{
	struct icheck_ctx c;
	int i;

	(void)sci_idx; (void)info;
	if (!dbg_args(argc, argv, 1, -1, "<block number> ...") || !dbg_need_fs(argv[0]))
		return;
	c.n = argc - 1;
	c.blocks = calloc((size_t)c.n, sizeof(*c.blocks));
	c.owner = calloc((size_t)c.n, sizeof(*c.owner));
	c.is_node = calloc((size_t)c.n, sizeof(*c.is_node));
	if (!c.blocks || !c.owner || !c.is_node) {
		dbg_err(argv[0], STALEFS_ERR_NO_MEMORY, "allocating the block list");
		goto out;
	}
	for (i = 0; i < c.n; i++)
		if (!dbg_parse_block(argv[0], argv[i + 1], &c.blocks[i]))
			goto out;
	dbg_inode_scan(icheck_inode, &c);
	if (dbg.json)
		printf("{\"blocks\":[");
	else
		printf("Block\tInode number\n");
	for (i = 0; i < c.n; i++) {
		bool meta = !c.owner[i] && dbg_block_role(c.blocks[i], NULL) != NULL;

		if (dbg.json) {
			printf("%s{\"block\":%llu,\"inode\":", i ? "," : "", (unsigned long long)c.blocks[i]);
			if (c.owner[i])
				printf("%u", c.owner[i]);
			else
				printf("null");
			printf(",\"extent_node\":%s,\"metadata\":%s}", c.is_node[i] ? "true" : "false",
			       meta ? "true" : "false");
			continue;
		}
		if (c.owner[i])
			printf("%llu\t%u%s\n", (unsigned long long)c.blocks[i], c.owner[i],
			       c.is_node[i] ? " (extent tree node)" : "");
		else
			printf("%llu\t%s\n", (unsigned long long)c.blocks[i],
			       meta ? "<filesystem metadata>" : "<block not found>");
	}
	if (dbg.json)
		printf("]}\n");
out:
	free(c.blocks);
	free(c.owner);
	free(c.is_node);
}

struct ncheck_ctx {
	u32 *inos;
	int *order;	/* argument indices sorted by inode: one binary search per entry */
	int n;
	bool *found;
	bool first;
};

static const u32 *ncheck_sort_inos;

static int ncheck_order_cmp(const void *a, const void *b)
{
	int x = *(const int *)a, y = *(const int *)b;
	u32 ix = ncheck_sort_inos[x], iy = ncheck_sort_inos[y];

	return ix < iy ? -1 : ix > iy ? 1 : (x > y) - (x < y);
}

static int ncheck_cb(u32 ino, u8 file_type, const char *path, void *priv)
{
	struct ncheck_ctx *c = priv;
	int lo = 0, hi = c->n, k;

	(void)file_type;
	while (lo < hi) {	/* the first position whose inode is >= ino */
		int mid = lo + (hi - lo) / 2;

		if (c->inos[c->order[mid]] < ino)
			lo = mid + 1;
		else
			hi = mid;
	}
	for (k = lo; k < c->n && c->inos[c->order[k]] == ino; k++) {
		int i = c->order[k];

		c->found[i] = true;
		if (dbg.json) {
			printf("%s{\"inode\":%u,\"path\":", c->first ? "" : ",", ino);
			json_str(stdout, path);
			printf("}");
			c->first = false;
		} else {
			printf("%u\t%s\n", ino, path);
		}
	}
	return 0;
}

DBG_CMD(do_ncheck)
{
	struct ncheck_ctx c = { .first = true };
	int i;

	(void)sci_idx; (void)info;
	if (!dbg_args(argc, argv, 1, -1, "<inode number> ...") || !dbg_need_fs(argv[0]))
		return;
	c.n = argc - 1;
	c.inos = calloc((size_t)c.n, sizeof(*c.inos));
	c.order = calloc((size_t)c.n, sizeof(*c.order));
	c.found = calloc((size_t)c.n, sizeof(*c.found));
	if (!c.inos || !c.order || !c.found) {
		dbg_err(argv[0], STALEFS_ERR_NO_MEMORY, "allocating the inode list");
		goto out;
	}
	for (i = 0; i < c.n; i++) {
		const char *s = argv[i + 1];
		char buf[32];

		/* Accept "12" as well as "<12>". */
		if (s[0] != '<') {
			snprintf(buf, sizeof(buf), "<%.20s>", s);
			s = buf;
		}
		if (!dbg_name_to_ino(argv[0], s, &c.inos[i]))
			goto out;
	}
	for (i = 0; i < c.n; i++)
		c.order[i] = i;
	ncheck_sort_inos = c.inos;
	qsort(c.order, (size_t)c.n, sizeof(*c.order), ncheck_order_cmp);
	if (dbg.json)
		printf("{\"paths\":[");
	else
		printf("Inode\tPathname\n");
	for (i = 0; i < c.n; i++)
		if (c.inos[i] == STALEFS_ROOT_INO) {
			ncheck_cb(c.inos[i], STALEFS_FT_DIR, "/", &c);
		}
	if (dbg_tree_walk(argv[0], STALEFS_ROOT_INO, "/", ncheck_cb, &c))
		dbg_fail();	/* damaged directories were named on stderr */
	if (dbg.json) {
		bool first = true;

		printf("],\"not_found\":[");
		for (i = 0; i < c.n; i++)
			if (!c.found[i]) {
				printf("%s%u", first ? "" : ",", c.inos[i]);
				first = false;
			}
		printf("]}\n");
	} else {
		for (i = 0; i < c.n; i++)
			if (!c.found[i])
				printf("%u\t<not found>\n", c.inos[i]);
	}
out:
	free(c.inos);
	free(c.order);
	free(c.found);
}
