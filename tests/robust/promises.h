/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The promises a recorded workload made, checked on the file system a power
 * cut left (mounted).  powercut-check verify and stress-replay share it.
 *
 * EVENTS lines (paths relative to the mount; N is the mark "eN" sent when
 * the promise was made, and the lines may come in any order: they are
 * applied by N, in file order within one N):
 *   N sync PATH COPY     fsync of PATH returned; COPY holds its content
 *   N xattrs PATH COPY   ... and COPY lists its user.* attributes, one
 *                        "NAME HEXVALUE" a line, sorted by name
 *   N symlink PATH TARGET  a symlink made durable, reading TARGET
 *   N touch PATH         PATH is about to change: no promise until next sync
 *   N unlinking PATH     PATH, synced, is about to be unlinked: until its next
 *                        promise it is either gone or reads what it read at
 *                        its sync (its blocks are neither reused nor
 *                        discarded before the unlink commits)
 *   N gone PATH          unlink (or rename away) of PATH made durable
 *   N stale-ino INO      inode INO holds NO_HIDE_STALE blocks (never freed)
 *   N file-id ID INO     the workload created inode INO as file ID (an
 *                        inode number may be reused: it keeps every ID)
 *
 * The checks: every promise holds; no regular file anywhere (lost+found
 * included) reads the fill pattern (fill-pattern.h) unless its inode was
 * allocated with NO_HIDE_STALE; and when file ids are registered, every
 * 16-byte record of every regular file is zeros, a data record
 * (data-record.h) of an id registered for that inode at that very offset,
 * or (NO_HIDE_STALE inodes) the fill pattern.
 */
#ifndef ROBUST_PROMISES_H
#define ROBUST_PROMISES_H

#include <stdio.h>

struct promises;

/* Read EVENTS and apply those numbered <= upto: NULL, with a message on stderr, if unreadable. */
struct promises *promises_load(const char *events, long upto);
/*
 * Check them on the file system mounted at mnt: the number of failures,
 * each a "FAIL: ..." line on out, then one summary line ("ok: ..." or
 * "FAIL: ..."); -1 when mnt cannot be opened.
 */
int promises_verify(struct promises *p, const char *mnt, FILE *out);
void promises_free(struct promises *p);
/*
 * Leave the NO_HIDE_STALE inodes' contents unchecked: for a disk that held
 * something else than the fill pattern before the replay (the disk the
 * log was recorded on), where what their blocks show is not known.
 */
void promises_skip_stale(struct promises *p);

#endif
