#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Does a per-source term for a framework's extra memory traffic explain MLPredict's rows?

MLPredict times a TensorFlow 1.10 session.run around one layer: besides the layer's own
kernels it runs TensorFlow's NHWC<->NCHW transposes, the bias add and activation, and in
training the backward pass and the optimizer's update, all memory-bound kernels whose time
grows with the tensors, not a per-call constant. A per-(source, GPU) floor alone
(docs/methodology.md, "Host floor") cannot hold it; this study measured what traffic terms
would explain, and the learned model's harness terms now carry model D's multiples, fitted
after the floor (docs/methodology.md, "Harness traffic").

This fits, per pass (forward, training), least squares on relative error over MLPredict's
conv2d or linear rows:
  A  measured = floor[gpu] + kernel_ms                              (the floor alone)
  B  A + x_in * input_bytes / bandwidth                             (one traffic multiple)
  C  A + (x_in * input + x_out * output + x_w * weight bytes) / bandwidth
  D  C with the bytes over the SMs' rate (SMs x boost clock, a byte per SM cycle) instead
with kernel_ms the analytical model's, bandwidth, SMs and clock each GPU's spec
(models/gpus.json). The multiples x are per source and pass (shared by its GPUs), the floors
per GPU: the harness terms that leave-source-out fits on a held-out source's own rows. "in
sample" fits everything on all rows; "held out by GPU" fits the multiples on the other GPUs
of the source and each GPU's floor on its own rows, so a multiple that held only for one
machine, or a basis that scales wrongly from GPU to GPU, shows there (per GPU: the second
table).

    build/cnnperf predict --layers datasets/layers_mlpredict.csv.gz --analytical --format csv -o /tmp/mlp_an.csv
    python3 research/harness_traffic_study.py /tmp/mlp_an.csv     # numpy; 5 s

Reads the predict output (its input columns and `kernel_ms`); prints MAPE % per op, pass and
model.
"""
import csv
import sys
from collections import defaultdict

import numpy as np

from gpu_db import gpus_by_name


def rates_by_name():
    """(DRAM bytes per ms, SM bytes per ms at one byte per SM cycle) per GPU name."""
    return {name: (g["memory_bandwidth_gbs"] * 1e6, g["sm_count"] * g["boost_clock_mhz"] * 1e3)
            for name, g in gpus_by_name().items()}


def tensor_bytes(r):
    b, ci, h, w, co = (int(r[k]) for k in ("batch", "c_in", "h_in", "w_in", "c_out"))
    ho, wo = int(r.get("h_out") or h), int(r.get("w_out") or w)
    kh, kw = int(r["kernel_h"]), int(r["kernel_w"])
    word = 4  # every MLPredict row is fp32
    return b * ci * h * w * word, b * co * ho * wo * word, ci * co * kh * kw * word


def fit(m, fixed, x):
    """Least squares of m - fixed on x, each row weighted 1/m (relative error)."""
    w = 1.0 / m
    c, *_ = np.linalg.lstsq(x * w[:, None], (m - fixed) * w, rcond=None)
    return c


def mape(pred, m):
    return float(np.mean(np.abs(pred / m - 1.0)) * 100.0)


def held_out_by_gpu(m, k, gpu, names, onehot, traffic):
    """Multiples from the other GPUs, each GPU's floor from its own rows."""
    held = np.empty_like(m)
    for n in names:
        out = gpu == n
        x = fit(m[~out], k[~out], np.c_[onehot[~out], traffic[~out]])[-3:]
        rest = m[out] - k[out] - traffic[out] @ x
        w = 1.0 / m[out]
        floor = float(np.sum(rest * w * w) / np.sum(w * w))
        held[out] = k[out] + floor + traffic[out] @ x
    return held


def main() -> int:
    if len(sys.argv) != 2:
        print(__doc__, file=sys.stderr)
        return 2
    rates = rates_by_name()
    groups = defaultdict(list)
    with open(sys.argv[1], newline="") as f:
        for r in csv.DictReader(f):
            if r.get("source") != "mlpredict" or float(r["kernel_ms"]) <= 0:
                continue
            groups[(r["op"], r["pass"])].append(r)
    print("| op | pass | rows | A: floor | B: + input traffic | C: + in, out, weight traffic | "
          "C, held out by GPU | D: C over the SMs' rate | D, held out by GPU | "
          "x_in, x_out, x_w of D (in sample) |")
    print("|---|---|---:|---:|---:|---:|---:|---:|---:|---|")
    per_gpu = []
    for (op, pas), rows in sorted(groups.items()):
        gpu = np.array([r["gpu"] for r in rows])
        names = sorted(set(gpu))
        m = np.array([float(r["latency_ms"]) for r in rows])
        k = np.array([float(r["kernel_ms"]) for r in rows])
        tensor = np.array([tensor_bytes(r) for r in rows], dtype=float)
        dram = tensor / np.array([rates[g.lower()][0] for g in gpu])[:, None]
        sm = tensor / np.array([rates[g.lower()][1] for g in gpu])[:, None]
        onehot = np.array([[1.0 if g == n else 0.0 for n in names] for g in gpu])
        a = fit(m, k, onehot)
        b = fit(m, k, np.c_[onehot, dram[:, 0]])
        c = fit(m, k, np.c_[onehot, dram])
        d = fit(m, k, np.c_[onehot, sm])
        held_c = held_out_by_gpu(m, k, gpu, names, onehot, dram)
        held_d = held_out_by_gpu(m, k, gpu, names, onehot, sm)
        print(f"| {op} | {pas} | {len(rows)} | {mape(k + onehot @ a, m):.1f} | "
              f"{mape(k + np.c_[onehot, dram[:, 0]] @ b, m):.1f} | "
              f"{mape(k + np.c_[onehot, dram] @ c, m):.1f} | {mape(held_c, m):.1f} | "
              f"{mape(k + np.c_[onehot, sm] @ d, m):.1f} | {mape(held_d, m):.1f} | "
              f"{', '.join(f'{v:.3g}' for v in d[-3:])} |")
        for n in names:
            out = gpu == n
            per_gpu.append((op, pas, n, mape(held_c[out], m[out]), mape(held_d[out], m[out])))
    print()
    print("| op | pass | GPU held out | C: over bandwidth | D: over the SMs' rate |")
    print("|---|---|---|---:|---:|")
    for op, pas, n, c_mape, d_mape in per_gpu:
        print(f"| {op} | {pas} | {n} | {c_mape:.1f} | {d_mape:.1f} |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
