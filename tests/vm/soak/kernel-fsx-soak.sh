#!/bin/bash
# The soak version of kernel-fsx: many more operations and seeds.
# needs: stalefs
# disk: scratch:512M
export FSX_OPS=${FSX_OPS:-50000}
export FSX_SEEDS=${FSX_SEEDS:-"11 12 13 14 15 16"}
exec "$STALEFS_ROOT/tests/vm/scenarios/kernel-fsx.sh"
