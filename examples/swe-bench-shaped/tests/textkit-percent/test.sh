#!/bin/sh
# The verifier of textkit-percent, as SWE-bench's: in /testbed as the agent left it, apply the hidden tests
# (this directory is /tests, for the verifier only) and run the failing test with them. Exit 0: resolved.
cd /testbed || exit 2
echo "the code the verifier sees:"
grep -A 1 "def percent" textkit/core.py
cp /tests/test_hidden.py tests/test_hidden.py # the verifier's writes go to a layer of its own
python3 -m unittest tests.test_core.TestPercent tests.test_hidden
