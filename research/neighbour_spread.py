#!/usr/bin/env python3
"""How far apart near-identical NeuSight conv2d shapes run, per GPU (research/notes/accuracy-history.md,
"How rough the NeuSight conv surface is").

For every conv2d row, its nearest other shape on the same GPU in (log2 batch, log2 c_in,
log2 c_out, log2 h_in) (all rows are 3x3, stride 1, square); for pairs closer than a
distance, the mean and median of |ratio - 1| of their latency per FLOP. A smooth latency
surface would give ratios near 1 for such pairs: what remains is what no model of the shape
alone can interpolate at this sampling density (cuDNN's choices and measurement noise).
Needs Debian's python3-numpy and python3-scipy.

Usage: research/neighbour_spread.py [datasets/layers_neusight.csv.gz]
"""
import csv
import gzip
import sys
from collections import defaultdict

import numpy as np
from scipy.spatial import cKDTree

KEYS = ["batch", "c_in", "c_out", "h_in"]


def main() -> int:
    path = sys.argv[1] if len(sys.argv) > 1 else "datasets/layers_neusight.csv.gz"
    by_gpu = defaultdict(list)
    with gzip.open(path, "rt", newline="") as f:
        for r in csv.DictReader(f):
            if r["op"] == "conv2d":
                by_gpu[r["gpu"]].append(r)
    print("gpu,max_distance,pairs,mean_abs_ratio_minus_1_pct,median_pct,"
          "same_kernel_pairs,same_kernel_mean_pct")
    for gpu, rows in sorted(by_gpu.items()):
        x = np.array([[np.log2(float(r[k])) for k in KEYS] for r in rows])
        flops = np.array([float(r["batch"]) * float(r["c_in"]) * float(r["c_out"]) *
                          float(r["h_in"]) * float(r["w_in"]) for r in rows])
        y = np.log(np.array([float(r["latency_ms"]) for r in rows]) / flops)
        dist, idx = cKDTree(x).query(x, k=2)
        dist, other = dist[:, 1], idx[:, 1]
        spread = np.abs(np.exp(y[other] - y) - 1) * 100
        same = np.array([rows[i]["main_kernel"] == rows[j]["main_kernel"]
                         for i, j in enumerate(other)])
        for d in (0.05, 0.1, 0.2):
            sel = dist < d
            both = sel & same
            print(f"{gpu},{d},{sel.sum()},{spread[sel].mean():.1f},{np.median(spread[sel]):.1f},"
                  f"{both.sum()},{spread[both].mean():.1f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
