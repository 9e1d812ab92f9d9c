#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Regenerates the LLVM-NVPTX fixtures (PTX from clang's NVPTX back end, not nvcc) used by the
# reconvergence tests: tests/data/ptx/*.clang.sm_80.ptx.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
root="$(cd "$here/../../.." && pwd)"
for k in conv_direct conv_implicit_gemm depthwise; do
  clang -x cuda --cuda-device-only -S --cuda-gpu-arch=sm_80 -nocudalib -nocudainc -O3 \
    -Wno-unknown-cuda-version -include "$here/clang_prelude.h" "$root/kernels/$k.cu" \
    -o "$here/$k.clang.sm_80.ptx"
done
