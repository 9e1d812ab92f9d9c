// SPDX-License-Identifier: Apache-2.0
// Minimal CUDA prelude so clang can compile kernels/*.cu with -nocudainc (no CUDA headers).
#define __global__ __attribute__((global))
#define __device__ __attribute__((device))
#define __launch_bounds__(...) __attribute__((launch_bounds(__VA_ARGS__)))
#include <__clang_cuda_builtin_vars.h>
#define fmaf __builtin_fmaf
#define fmaxf __builtin_fmaxf
#define __shared__ __attribute__((shared))
#define __ldg(p) (*(p))
