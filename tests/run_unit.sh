#!/usr/bin/env bash
# run_unit.sh - run every cmocka unit-test binary given; report totals.
set -u
pass=0; fail=0
for t in "$@"; do
  if "$t"; then pass=$((pass+1)); else fail=$((fail+1)); echo "FAILED: $t"; fi
done
echo "unit binaries: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
