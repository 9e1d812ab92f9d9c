// SPDX-License-Identifier: Apache-2.0
// im2col for NCHW input: column matrix [C*R*S][N*P*Q], zeros for padding taps.
// Grid-stride loop over the column-matrix elements.
extern "C" __global__ void im2col_nchw(const float* __restrict__ x, float* __restrict__ col, int N,
                                       int C, int H, int W, int R, int S, int P, int Q, int stride_h,
                                       int stride_w, int pad_h, int pad_w, int dil_h, int dil_w) {
  const long NPQ = (long)N * P * Q;
  const long total = (long)C * R * S * NPQ;
  for (long i = (long)blockIdx.x * blockDim.x + threadIdx.x; i < total; i += (long)gridDim.x * blockDim.x) {
    const long n = i % NPQ;
    const int crs = i / NPQ;
    const int s = crs % S;
    const int r = (crs / S) % R;
    const int c = crs / (R * S);
    const int q = n % Q;
    const int p = (n / Q) % P;
    const int b = n / ((long)P * Q);
    const int h = p * stride_h - pad_h + r * dil_h;
    const int ww = q * stride_w - pad_w + s * dil_w;
    col[i] = (h >= 0 && h < H && ww >= 0 && ww < W) ? x[(((long)b * C + c) * H + h) * W + ww] : 0.0f;
  }
}
