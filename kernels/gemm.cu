// SPDX-License-Identifier: Apache-2.0
// GEMM for linear layers: y[m][n] = sum_k x[m][k] * w[n][k] (+ bias[n]); x is [M][Kd]
// (M = batch rows), w is [N][Kd] (PyTorch Linear weight layout). Shared-memory tiles,
// TM x TN register tile per thread; out-of-range elements are loaded as zeros, so each
// CTA runs BM*BN*BK FMAs per k-step.
template <int BM, int BN, int BK, int TM, int TN>
__global__ void __launch_bounds__((BM / TM) * (BN / TN))
gemm_nt(const float* __restrict__ x, const float* __restrict__ w, const float* __restrict__ bias,
        float* __restrict__ y, int M, int N, int Kd) {
  constexpr int kThreads = (BM / TM) * (BN / TN);
  __shared__ float As[BK][BM];
  __shared__ float Bs[BK][BN];
  const int tid = threadIdx.x;
  const int tx = tid % (BN / TN);
  const int ty = tid / (BN / TN);
  const int m0 = blockIdx.y * BM;
  const int n0 = blockIdx.x * BN;
  float acc[TM][TN];
#pragma unroll
  for (int i = 0; i < TM; ++i)
#pragma unroll
    for (int j = 0; j < TN; ++j) acc[i][j] = 0.0f;
  for (int k0 = 0; k0 < Kd; k0 += BK) {
    for (int i = tid; i < BM * BK; i += kThreads) {
      const int kk = i % BK, mm = i / BK;
      const int m = m0 + mm, k = k0 + kk;
      As[kk][mm] = (m < M && k < Kd) ? x[(long)m * Kd + k] : 0.0f;
    }
    for (int i = tid; i < BN * BK; i += kThreads) {
      const int kk = i % BK, nn = i / BK;
      const int n = n0 + nn, k = k0 + kk;
      Bs[kk][nn] = (n < N && k < Kd) ? w[(long)n * Kd + k] : 0.0f;
    }
    __syncthreads();
#pragma unroll
    for (int kk = 0; kk < BK; ++kk) {
      float a[TM], b[TN];
#pragma unroll
      for (int i = 0; i < TM; ++i) a[i] = As[kk][ty * TM + i];
#pragma unroll
      for (int j = 0; j < TN; ++j) b[j] = Bs[kk][tx * TN + j];
#pragma unroll
      for (int i = 0; i < TM; ++i)
#pragma unroll
        for (int j = 0; j < TN; ++j) acc[i][j] = fmaf(a[i], b[j], acc[i][j]);
    }
    __syncthreads();
  }
#pragma unroll
  for (int i = 0; i < TM; ++i) {
    const int m = m0 + ty * TM + i;
    if (m >= M) continue;
#pragma unroll
    for (int j = 0; j < TN; ++j) {
      const int n = n0 + tx * TN + j;
      if (n >= N) continue;
      y[(long)m * N + n] = acc[i][j] + (bias != nullptr ? bias[n] : 0.0f);
    }
  }
}

template __global__ void gemm_nt<32, 32, 8, 2, 2>(const float* __restrict__, const float* __restrict__,
                                                  const float* __restrict__, float* __restrict__, int, int, int);
template __global__ void gemm_nt<64, 64, 8, 4, 4>(const float* __restrict__, const float* __restrict__,
                                                  const float* __restrict__, float* __restrict__, int, int, int);
