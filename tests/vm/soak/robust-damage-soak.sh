#!/bin/bash
# The soak version of robust-damage: 2,000 damaged images (seeds from
# 100000, apart from make check's), about 5 s each under TCG.
# needs: stalefs
# timeout: 14000
export DAMAGE_COUNT=${DAMAGE_COUNT:-2000}
export DAMAGE_SEED=${DAMAGE_SEED:-100000}
exec bash "$STALEFS_ROOT/tests/vm/scenarios/robust-damage.sh"
