// SPDX-License-Identifier: Apache-2.0
// Max and average 2-D pooling over NCHW, one thread per output element. Average pooling
// divides by the number of in-bounds taps (count_include_pad = false).
extern "C" __global__ void maxpool2d_nchw(const float* __restrict__ x, float* __restrict__ y, int N, int C,
                                          int H, int W, int R, int S, int P, int Q, int stride_h,
                                          int stride_w, int pad_h, int pad_w) {
  const long idx = (long)blockIdx.x * blockDim.x + threadIdx.x;
  if (idx >= (long)N * C * P * Q) return;
  const int q = idx % Q;
  const int p = (idx / Q) % P;
  const long bc = idx / ((long)P * Q);
  const float* xp = x + bc * H * W;
  float m = -3.402823466e38f;
  for (int r = 0; r < R; ++r) {
    const int h = p * stride_h - pad_h + r;
    if (h < 0 || h >= H) continue;
    for (int s = 0; s < S; ++s) {
      const int ww = q * stride_w - pad_w + s;
      if (ww < 0 || ww >= W) continue;
      m = fmaxf(m, xp[h * W + ww]);
    }
  }
  y[idx] = m;
}

extern "C" __global__ void avgpool2d_nchw(const float* __restrict__ x, float* __restrict__ y, int N, int C,
                                          int H, int W, int R, int S, int P, int Q, int stride_h,
                                          int stride_w, int pad_h, int pad_w) {
  const long idx = (long)blockIdx.x * blockDim.x + threadIdx.x;
  if (idx >= (long)N * C * P * Q) return;
  const int q = idx % Q;
  const int p = (idx / Q) % P;
  const long bc = idx / ((long)P * Q);
  const float* xp = x + bc * H * W;
  float sum = 0.0f;
  int count = 0;
  for (int r = 0; r < R; ++r) {
    const int h = p * stride_h - pad_h + r;
    if (h < 0 || h >= H) continue;
    for (int s = 0; s < S; ++s) {
      const int ww = q * stride_w - pad_w + s;
      if (ww < 0 || ww >= W) continue;
      sum += xp[h * W + ww];
      ++count;
    }
  }
  y[idx] = count > 0 ? sum / count : 0.0f;
}
