#!/usr/bin/env bash
# deps.sh - install the Debian packages ctvm needs to build and test (run as
# root on a fresh Debian 12). Installs only what is missing.
set -euo pipefail
pkgs=(gcc make binutils protobuf-c-compiler libprotobuf-c-dev libjansson-dev libcmocka-dev
      libopenblas-dev libzip-dev libonnx-dev libonnx-testdata python3 python3-numpy python3-venv
      python3-torch python3-torchvision python3-onnx
      # cross targets (issue 4): Linux cross compilers + their libc, qemu-user to
      # run them, the Cortex-M toolchain with newlib's headers, clang
      gcc-aarch64-linux-gnu gcc-arm-linux-gnueabihf gcc-riscv64-linux-gnu
      libc6-dev-arm64-cross libc6-dev-armhf-cross libc6-dev-riscv64-cross qemu-user
      gcc-arm-none-eabi libnewlib-arm-none-eabi clang libomp-dev
      # libFuzzer and the sanitizer runtimes of clang (make fuzz, make san: issue 20)
      libclang-rt-14-dev
      # run Cortex-M7 firmware bare metal (tests/mcu/run_m7.sh, mps2-an500 board)
      qemu-system-arm)
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
