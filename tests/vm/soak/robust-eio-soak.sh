#!/bin/bash
# The soak version of robust-eio-random: 300 rounds of random device errors
# (seeds from 100000, apart from make check's), about 10 s each under TCG.
# needs: stalefs
# needs: dm-flakey
# disk: scratch:64M
# timeout: 7000
export EIO_ROUNDS=${EIO_ROUNDS:-300}
export EIO_SEED=${EIO_SEED:-100000}
exec bash "$STALEFS_ROOT/tests/vm/scenarios/robust-eio-random.sh"
