// SPDX-License-Identifier: Apache-2.0
// Direct forward convolution (NCHW / KCRS, groups = 1): one thread per output element;
// padding taps are skipped by bounds checks, so FMAs executed = MACs over valid taps.
extern "C" __global__ void conv2d_direct_nchw(const float* __restrict__ x, const float* __restrict__ w,
                                              const float* __restrict__ bias, float* __restrict__ y,
                                              int N, int C, int H, int W, int K, int R, int S, int P,
                                              int Q, int stride_h, int stride_w, int pad_h, int pad_w,
                                              int dil_h, int dil_w, int relu) {
  const long idx = (long)blockIdx.x * blockDim.x + threadIdx.x;
  const long total = (long)N * K * P * Q;
  if (idx >= total) return;
  const int q = idx % Q;
  const int p = (idx / Q) % P;
  const int k = (idx / ((long)P * Q)) % K;
  const int b = idx / ((long)K * P * Q);
  float acc = bias != nullptr ? bias[k] : 0.0f;
  for (int c = 0; c < C; ++c) {
    for (int r = 0; r < R; ++r) {
      const int h = p * stride_h - pad_h + r * dil_h;
      if (h < 0 || h >= H) continue;
      for (int s = 0; s < S; ++s) {
        const int ww = q * stride_w - pad_w + s * dil_w;
        if (ww < 0 || ww >= W) continue;
        acc = fmaf(x[(((long)b * C + c) * H + h) * W + ww], w[(((long)k * C + c) * R + r) * S + s], acc);
      }
    }
  }
  if (relu && acc < 0.0f) acc = 0.0f;
  y[idx] = acc;
}
