#!/bin/bash
# The soak of robust-powercut-cache on ext4, the reference: the same kinds
# of cut points as robust-powercut-cache-soak.sh (every mark, every flush,
# random points; at least 500), minus the NO_HIDE_STALE part.  ext4 must
# pass them all.
# needs: dm-log-writes
# disk: pcdata:32M:1q
# disk: pclog:1G
# timeout: 10000
export PCC_FS=ext4
exec bash "$STALEFS_ROOT/tests/vm/soak/robust-powercut-cache-soak.sh"
