#!/usr/bin/env bash
# ci.sh - the fast conformance variant run by `make test` (tests/run_all.sh):
# Debian's node suite (onnx 1.12) and the pip onnx node suite (1.23.2), native
# target, -O1, 2 jobs. Fails on any crash or when a suite's in-scope pass rate
# drops below its floor: the rate measured when the floor was last raised minus
# a small margin (docs/CONFORMANCE.md). Raise the floors as operators land;
# the goal is 97% (`make conformance` checks that).
# Env: CONF_JOBS (default 2), CONF_TARGET (default native).
set -u
cd "$(dirname "$0")/../.."
DEBIAN_NODE_MIN=50
PIP_NODE_MIN=40
exec /usr/bin/python3 tests/conformance/conformance.py \
  --suite debian-node --suite onnx-node-1.23.2 \
  -j "${CONF_JOBS:-2}" --target "${CONF_TARGET:-native}" --cflags -O1 \
  --min debian-node=$DEBIAN_NODE_MIN --min onnx-node-1.23.2=$PIP_NODE_MIN \
  --json build/conformance/ci-summary.json "$@"
