#!/bin/bash
# Power cuts over online grows (issue 27): the grow workload of
# robust-powercut-cache (a journaled file system a third of its 48 MiB
# device, 1 KiB blocks, 2 MiB groups, grown twice through
# STALEFS_IOC_RESIZE_FS, from 8 to 16 to 24 groups: across the descriptor
# table's end into META_BG, with
# files written before, between and after) recorded with dm-log-writes and
# cut at every mark, every flush and random points under the volatile-cache
# model: every cut mounts, keeps every fsync'd file and durable unlink,
# shows no old byte, is at a size the file system had and at least the one
# a returned grow promised, and checks clean (fsck -fn) with no repair.
# needs: stalefs
# needs: dm-log-writes
# disk: pcdata:48M:1q
# disk: pclog:1G
# timeout: 10000
export PCC_FS=${PCC_FS:-stalefs}
export PCC_WORKLOADS=${PCC_WORKLOADS:-grow}
export PCC_ROUNDS=${PCC_ROUNDS:-3}
export PCC_MARKS_MAX=${PCC_MARKS_MAX:-0}	# every mark
export PCC_FLUSH_MAX=${PCC_FLUSH_MAX:-0}	# every flush
export PCC_FLUSH_SEEDS=${PCC_FLUSH_SEEDS:-2}
export PCC_RANDOM=${PCC_RANDOM:-20}
export PCC_SEED=${PCC_SEED:-27}
export PCC_MIN_POINTS=${PCC_MIN_POINTS:-200}
export PCC_SAVE_MAX=${PCC_SAVE_MAX:-20}
exec bash "$STALEFS_ROOT/tests/vm/scenarios/robust-powercut-cache.sh"
