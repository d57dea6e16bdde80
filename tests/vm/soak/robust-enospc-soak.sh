#!/bin/bash
# The soak version of robust-enospc: the same sweep at 2 and 4 KiB blocks
# (make check runs 1 KiB), with more rounds.
# needs: stalefs
# disk: scratch:64M
# timeout: 3000
set -e
for bs in 2048 4096; do
	ENOSPC_BLOCK_SIZE=$bs ENOSPC_ROUNDS=${ENOSPC_ROUNDS:-64} \
		bash "$STALEFS_ROOT/tests/vm/scenarios/robust-enospc.sh"
done
