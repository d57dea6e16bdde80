#!/bin/bash
# needs: stalefs
# The self-test gives run-vm a module that cannot load (a bogus file, or a
# path that does not exist): this must be reported FAIL, never run or skipped.
echo "this must not run: the module did not load" >&2
exit 0
