#!/bin/bash
# Power cuts over online discard (issue 27): the unwritten, reuse, names and
# mix workloads of robust-powercut-cache mounted with -o discard, cut under
# the volatile-cache model with discards applied (a kept discard zeroes its
# range: cache-model.h "+discard"), at every mark, every flush and random
# points.  A discard of a block that a committed file still holds (one
# issued before its freeing transaction commits) shows as an fsync'd file
# that lost data, or as a check that needs repair; neither may happen.
# needs: stalefs
# needs: dm-log-writes
# disk: pcdata:32M:1q
# disk: pclog:1G
# timeout: 10000
export PCC_FS=${PCC_FS:-stalefs}
export PCC_WORKLOADS=${PCC_WORKLOADS:-unwritten reuse names mix}
export PCC_MOUNT_OPTS=${PCC_MOUNT_OPTS:-discard}
export PCC_DISCARDS=zero
export PCC_ROUNDS=${PCC_ROUNDS:-1}
export PCC_MARKS_MAX=${PCC_MARKS_MAX:-0}
export PCC_FLUSH_MAX=${PCC_FLUSH_MAX:-0}
export PCC_FLUSH_SEEDS=${PCC_FLUSH_SEEDS:-1}
export PCC_RANDOM=${PCC_RANDOM:-10}
export PCC_SEED=${PCC_SEED:-27}
export PCC_MIN_POINTS=${PCC_MIN_POINTS:-300}
export PCC_SAVE_MAX=${PCC_SAVE_MAX:-20}
exec bash "$STALEFS_ROOT/tests/vm/scenarios/robust-powercut-cache.sh"
