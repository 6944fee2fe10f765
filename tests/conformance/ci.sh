#!/usr/bin/env bash
# ci.sh - the conformance run of `make test` (tests/run_all.sh): every suite
# (Debian's libonnx-testdata node, pytorch-converted, pytorch-operator and
# simple, and the node suite of the pinned onnx release), native target, -O1,
# 2 jobs. Fails on any crash or when a suite's in-scope pass rate drops below
# 97% (the goal) or below its own floor: the rate measured when the floor was
# last raised minus a small margin (docs/CONFORMANCE.md).
# Env: CONF_JOBS (default 2), CONF_TARGET (default native).
set -u
cd "$(dirname "$0")/../.."
DEBIAN_NODE_MIN=98.5
PIP_NODE_MIN=98.5
exec /usr/bin/python3 tests/conformance/conformance.py --suite all \
  -j "${CONF_JOBS:-2}" --target "${CONF_TARGET:-native}" --cflags=-O1 --threshold 97 \
  --min debian-node=$DEBIAN_NODE_MIN --min onnx-node-1.23.2=$PIP_NODE_MIN \
  --json build/conformance/ci-summary.json "$@"
