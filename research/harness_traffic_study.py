#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Does a per-source term for a framework's extra memory traffic explain MLPredict's rows?

MLPredict times a TensorFlow 1.10 session.run around one layer: besides the layer's own
kernels it runs TensorFlow's NHWC<->NCHW transposes, the bias add and activation, and in
training the backward pass and the optimizer's update, all memory-bound kernels whose time
grows with the tensors, not a per-call constant. A per-(source, GPU) floor alone
(docs/methodology.md, "Host floor") cannot hold it; this study measured what traffic terms
would explain, and the learned model's harness terms now carry model C's multiples, fitted
after the floor (docs/methodology.md, "Harness traffic").

This fits, per pass (forward, training), least squares on relative error over MLPredict's
conv2d or linear rows:
  A  measured = floor[gpu] + kernel_ms                              (the floor alone)
  B  A + x_in * input_bytes / bandwidth                             (one traffic multiple)
  C  A + (x_in * input + x_out * output + x_w * weight bytes) / bandwidth
with kernel_ms the analytical model's and bandwidth each GPU's spec (models/gpus.json). The
multiples x are per source and pass (shared by its GPUs), the floors per GPU: the harness
terms that leave-source-out fits on a held-out source's own rows. "in sample" fits everything
on all rows; "x held out by GPU" fits the multiples on the other GPUs of the source and each
GPU's floor on its own rows, so a multiple that held only for one machine would show there.

    build/cnnperf predict --layers datasets/layers_mlpredict.csv.gz --analytical --format csv -o /tmp/mlp_an.csv
    python3 research/harness_traffic_study.py /tmp/mlp_an.csv     # numpy; 5 s

Reads the predict output (its input columns and `kernel_ms`); prints MAPE % per op, pass and
model.
"""
import csv
import json
import os
import sys
from collections import defaultdict

import numpy as np

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def bandwidth_by_name():
    with open(os.path.join(ROOT, "models/gpus.json")) as f:
        gpus = json.load(f)["gpus"]
    out = {}
    for g in gpus:
        for name in [g["name"], g["display_name"]] + g.get("aliases", []):
            out[name.lower()] = g["memory_bandwidth_gbs"]
    return out


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


def main() -> int:
    if len(sys.argv) != 2:
        print(__doc__, file=sys.stderr)
        return 2
    bandwidth = bandwidth_by_name()
    groups = defaultdict(list)
    with open(sys.argv[1], newline="") as f:
        for r in csv.DictReader(f):
            if r.get("source") != "mlpredict" or float(r["kernel_ms"]) <= 0:
                continue
            groups[(r["op"], r["pass"])].append(r)
    print("| op | pass | rows | A: floor | B: + input traffic | C: + in, out, weight traffic | "
          "C, x held out by GPU | x_in, x_out, x_w (in sample) |")
    print("|---|---|---:|---:|---:|---:|---:|---|")
    for (op, pas), rows in sorted(groups.items()):
        gpu = np.array([r["gpu"] for r in rows])
        names = sorted(set(gpu))
        m = np.array([float(r["latency_ms"]) for r in rows])
        k = np.array([float(r["kernel_ms"]) for r in rows])
        bw_ms = np.array([bandwidth[g.lower()] * 1e6 for g in gpu])  # bytes per ms
        traffic = np.array([tensor_bytes(r) for r in rows], dtype=float) / bw_ms[:, None]
        onehot = np.array([[1.0 if g == n else 0.0 for n in names] for g in gpu])
        a = fit(m, k, onehot)
        b = fit(m, k, np.c_[onehot, traffic[:, 0]])
        c = fit(m, k, np.c_[onehot, traffic])
        scores = [mape(k + onehot @ a, m),
                  mape(k + np.c_[onehot, traffic[:, 0]] @ b, m),
                  mape(k + np.c_[onehot, traffic] @ c, m)]
        held = np.empty_like(m)
        for n in names:
            out = gpu == n
            x = fit(m[~out], k[~out], np.c_[onehot[~out], traffic[~out]])[-3:]
            # The held-out GPU's floor on its own rows, the multiples from the others.
            rest = m[out] - k[out] - traffic[out] @ x
            w = 1.0 / m[out]
            floor = float(np.sum(rest * w * w) / np.sum(w * w))
            held[out] = k[out] + floor + traffic[out] @ x
        print(f"| {op} | {pas} | {len(rows)} | {scores[0]:.1f} | {scores[1]:.1f} | "
              f"{scores[2]:.1f} | {mape(held, m):.1f} | "
              f"{', '.join(f'{v:.2f}' for v in c[-3:])} |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
