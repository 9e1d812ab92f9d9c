#!/usr/bin/python3
"""Would cost ratios of cuDNN's other conv algorithms help MLPredict's held-out shapes?
(research/notes/accuracy-history.md, "Where the remaining error sits".)

MLPredict's conv rows are weakest at stride 1 (where cuDNN may pick FFT or Winograd instead
of an implicit GEMM), and more so for larger kernels. This script adds, to the features
`cnnperf train --cv group-shape --export-features` wrote, the log2 ratio of an FFT, a tiled
FFT (32x32 tiles) and a Winograd F(4x4, k x k) operation count to the direct convolution's
(stride 1 only; a constant otherwise), then the input, output and weight tensor sizes, and
fits scikit-learn's histogram gradient boosting on the log ratio, fold by fold. It prints
the MAPE of the latency over all rows, over stride-1 rows (and those by kernel size) and over the others,
per variant.
The op counts are rough (5 N log2 N per complex FFT, 8 flops per complex multiply-add):
what is asked is whether the ranking they give adds anything the trees cannot find.

Usage: research/conv_algorithm_cost_study.py ROWS.csv FEATURES.csv
  ROWS.csv      the conv2d rows (the rows --export-features was given, same order)
  FEATURES.csv  the export; needs Debian's python3-sklearn (/usr/bin/python3)
"""
import csv
import sys
import time

import numpy as np
from sklearn.ensemble import HistGradientBoostingRegressor


def columns(path):
    with open(path, newline="") as f:
        reader = csv.reader(f)
        header = next(reader)
        rows = list(reader)
    return header, rows


def main():
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    raw_header, raw = columns(sys.argv[1])
    header, rows = columns(sys.argv[2])
    if len(raw) != len(rows):
        sys.exit("ROWS.csv and FEATURES.csv differ in length: not the same rows")
    first, last = header.index("fold") + 1, header.index("baseline_ms")
    x = np.array([[float(v) for v in r[first:last]] for r in rows])
    fold = np.array([int(r[header.index("fold")]) for r in rows])
    y = np.array([float(r[header.index("log_ratio")]) for r in rows])
    base = np.array([float(r[header.index("baseline_ms")]) for r in rows])
    lat = np.array([float(r[header.index("latency_ms")]) for r in rows])

    def raw_col(name, default=None):
        i = raw_header.index(name)
        return np.array([float(r[i]) if r[i] != "" else default for r in raw], dtype=float)

    n, c, h, w = raw_col("batch"), raw_col("c_in"), raw_col("h_in"), raw_col("w_in")
    k, kh, kw, s = raw_col("c_out"), raw_col("kernel_h"), raw_col("kernel_w"), raw_col("stride_h")
    ho, wo = raw_col("h_out"), raw_col("w_out")
    pad_h = raw_col("pad_h") + raw_col("pad_h_end")
    pad_w = raw_col("pad_w") + raw_col("pad_w_end")
    hf = 2 ** np.ceil(np.log2(h + pad_h))
    wf = 2 ** np.ceil(np.log2(w + pad_w))
    direct = 2 * n * k * ho * wo * c * kh * kw
    fft = (n * c + n * k + c * k) * hf * wf * np.log2(np.maximum(hf * wf, 2)) * 2.5 \
        + 8 * n * c * k * hf * (wf / 2 + 1)
    tiles = np.ceil(ho / np.maximum(33 - kh, 1)) * np.ceil(wo / np.maximum(33 - kw, 1))
    fft_tiled = (n * c + n * k) * tiles * 32 * 32 * 10 * 2.5 + c * k * 32 * 32 * 10 * 2.5 \
        + 8 * n * c * k * tiles * 32 * 17
    m = 4
    wino = 2 * n * np.ceil(ho / m) * np.ceil(wo / m) * (m + kh - 1) ** 2 * c * k \
        + (n * c + n * k) * np.ceil(ho / m) * np.ceil(wo / m) * (m + kh - 1) ** 2 * 4
    stride1 = s == 1
    algo = [np.where(stride1, np.log2(fft / direct), 10),
            np.where(stride1 & (kh > 1), np.log2(fft_tiled / direct), 10),
            np.where(stride1 & (kh <= 5), np.log2(wino / direct), 10)]
    sizes = [np.log2(n * c * h * w), np.log2(n * k * ho * wo), np.log2(k * c * kh * kw)]
    variants = {"features as exported": [], "+ algorithm cost ratios": algo,
                "+ tensor sizes": sizes, "+ both": algo + sizes}
    for name, extra in variants.items():
        xv = np.column_stack([x] + extra) if extra else x
        err = np.zeros(len(y))
        start = time.time()
        for f in sorted(set(fold)):
            train, test = fold != f, fold == f
            model = HistGradientBoostingRegressor(max_iter=400, max_leaf_nodes=63,
                                                  learning_rate=0.1, random_state=0)
            model.fit(xv[train], y[train])
            err[test] = np.abs(base[test] * np.exp(model.predict(xv[test])) - lat[test]) / lat[test]
        by_kernel = "  ".join(f"{int(size)}x{int(size)} {100 * err[stride1 & (kh == size)].mean():.1f}"
                              for size in sorted(set(kh[stride1])))
        print(f"{name:26s} MAPE {100 * err.mean():5.2f} %  stride 1 {100 * err[stride1].mean():5.2f} %"
              f"  strides 2-4 {100 * err[~stride1].mean():5.2f} %  ({time.time() - start:.0f} s)\n"
              f"{'':26s} stride 1 by kernel: {by_kernel}", flush=True)


if __name__ == "__main__":
    main()
