#!/usr/bin/env bash
# deps.sh - install the Debian packages ctvm needs to build and test (run as
# root on a fresh Debian 12). Installs only what is missing.
set -euo pipefail
pkgs=(gcc make binutils protobuf-c-compiler libprotobuf-c-dev libjansson-dev libcmocka-dev
      libopenblas-dev libzip-dev libonnx-dev libonnx-testdata python3 python3-numpy
      python3-torch python3-torchvision python3-onnx)
missing=()
for p in "${pkgs[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  echo "deps: installing ${missing[*]}"
  apt-get update -qq
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${missing[@]}" >/dev/null
else
  echo "deps: all Debian packages present"
fi
