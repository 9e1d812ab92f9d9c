// SPDX-License-Identifier: Apache-2.0
// Implicit-GEMM forward convolution, NCHW input, KCRS weights, NKPQ output.
// GEMM view: M = K (output channels), N = batch*P*Q (output pixels), Kdim = C*R*S.
// A CTA computes a BM x BN output tile with (BM/TM)*(BN/TN) threads, each a TM x TN register
// tile; BK-deep slices of A (weights) and B (the im2col matrix, gathered on the fly) are
// staged in shared memory. Padding taps are loaded as zeros, so every tile runs the full
// BM*BN*BK FMAs per k-step (the tile arithmetic is the closed form tests rely on).
template <int BM, int BN, int BK, int TM, int TN>
__global__ void __launch_bounds__((BM / TM) * (BN / TN))
conv2d_igemm(const float* __restrict__ x, const float* __restrict__ w, const float* __restrict__ bias,
             float* __restrict__ y, int N, int C, int H, int W, int K, int R, int S, int P, int Q,
             int stride_h, int stride_w, int pad_h, int pad_w, int dil_h, int dil_w, int relu) {
  constexpr int kThreads = (BM / TM) * (BN / TN);
  __shared__ float As[BK][BM];
  __shared__ float Bs[BK][BN];
  const int tid = threadIdx.x;
  const int tx = tid % (BN / TN);
  const int ty = tid / (BN / TN);
  const int m0 = blockIdx.y * BM;
  const int n0 = blockIdx.x * BN;
  const int CRS = C * R * S;
  const int RS = R * S;
  const int PQ = P * Q;
  const int NPQ = N * PQ;
  float acc[TM][TN];
#pragma unroll
  for (int i = 0; i < TM; ++i)
#pragma unroll
    for (int j = 0; j < TN; ++j) acc[i][j] = 0.0f;

  for (int k0 = 0; k0 < CRS; k0 += BK) {
    // A tile: weights w[m][k], stored transposed in shared memory.
    for (int i = tid; i < BM * BK; i += kThreads) {
      const int kk = i % BK;
      const int mm = i / BK;
      const int m = m0 + mm;
      const int k = k0 + kk;
      float v = 0.0f;
      if (m < K && k < CRS) v = w[(long)m * CRS + k];
      As[kk][mm] = v;
    }
    // B tile: the im2col element (k, n) gathered from x; padding taps become zeros.
    for (int i = tid; i < BN * BK; i += kThreads) {
      const int nn = i % BN;
      const int kk = i / BN;
      const int n = n0 + nn;
      const int k = k0 + kk;
      float v = 0.0f;
      if (n < NPQ && k < CRS) {
        const int c = k / RS;
        const int rs = k - c * RS;
        const int r = rs / S;
        const int s = rs - r * S;
        const int b = n / PQ;
        const int pq = n - b * PQ;
        const int p = pq / Q;
        const int q = pq - p * Q;
        const int h = p * stride_h - pad_h + r * dil_h;
        const int ww = q * stride_w - pad_w + s * dil_w;
        if (h >= 0 && h < H && ww >= 0 && ww < W) v = x[(((long)b * C + c) * H + h) * W + ww];
      }
      Bs[kk][nn] = v;
    }
    __syncthreads();
#pragma unroll
    for (int kk = 0; kk < BK; ++kk) {
      float a[TM], bv[TN];
#pragma unroll
      for (int i = 0; i < TM; ++i) a[i] = As[kk][ty * TM + i];
#pragma unroll
      for (int j = 0; j < TN; ++j) bv[j] = Bs[kk][tx * TN + j];
#pragma unroll
      for (int i = 0; i < TM; ++i)
#pragma unroll
        for (int j = 0; j < TN; ++j) acc[i][j] = fmaf(a[i], bv[j], acc[i][j]);
    }
    __syncthreads();
  }
#pragma unroll
  for (int i = 0; i < TM; ++i) {
    const int m = m0 + ty * TM + i;
    if (m >= K) continue;
    const float bi = bias != nullptr ? bias[m] : 0.0f;
#pragma unroll
    for (int j = 0; j < TN; ++j) {
      const int n = n0 + tx * TN + j;
      if (n >= NPQ) continue;
      const int b = n / PQ;
      const int pq = n - b * PQ;
      float v = acc[i][j] + bi;
      if (relu && v < 0.0f) v = 0.0f;
      y[((long)b * K + m) * PQ + pq] = v;
    }
  }
}

#define CNNPERF_IGEMM(BM, BN, BK, TM, TN)                                                        \
  template __global__ void conv2d_igemm<BM, BN, BK, TM, TN>(                                    \
      const float* __restrict__, const float* __restrict__, const float* __restrict__,         \
      float* __restrict__, int, int, int, int, int, int, int, int, int, int, int, int, int, int, \
      int, int);
CNNPERF_IGEMM(32, 32, 8, 2, 2)
CNNPERF_IGEMM(64, 64, 8, 4, 4)
CNNPERF_IGEMM(64, 32, 8, 4, 4)
CNNPERF_IGEMM(128, 64, 8, 8, 4)
CNNPERF_IGEMM(128, 128, 8, 8, 8)
