#!/usr/bin/python3
"""Would a GPU outside the data be predicted better by a blend of the learned regressor
(GPU spec features) and the gpu-blind one (without them)? (research/notes/accuracy-history.md, "Where the
remaining error sits".)

Reads a `cnnperf train --cv leave-gpu-out --export-features` CSV (fold = GPU). Per op family,
held out one GPU at a time, it fits scikit-learn's histogram gradient boosting on the other
GPUs' log ratio twice, with and without the nine `gpu` feature columns, and scores the
geometric blend exp(w log learned + (1 - w) log gpu-blind) for w = 1, 0.75, 0.5, 0.25, 0:
MAPE of the latency over all rows and per held-out GPU. Needs Debian's python3-sklearn
(/usr/bin/python3).

Usage: research/logo_blend_study.py FEATURES.csv [FAMILY ...]   (default: conv gemm pointwise)
"""
import sys

import numpy as np
from sklearn.ensemble import HistGradientBoostingRegressor

from feature_export import mape, read_family

GPU_FEATURES = {"log2_fp32_tflops", "log2_bandwidth_gbs", "sm_count", "boost_clock_ghz",
                "log2_l2_mb", "compute_capability", "shared_mem_per_sm_kb", "flops_per_byte",
                "log2_tensor_tflops"}
WEIGHTS = (1.0, 0.75, 0.5, 0.25, 0.0)


def load(path, family):
    names, x, y, gpu = read_family(path, family)
    blind = [i for i, n in enumerate(names) if n not in GPU_FEATURES]
    return x, blind, y, gpu


def held_out_predictions(x, y, gpu):
    pred = np.zeros(len(y))
    for held in sorted(set(gpu)):
        train, test = gpu != held, gpu == held
        model = HistGradientBoostingRegressor(max_iter=400, learning_rate=0.1,
                                              max_leaf_nodes=63, random_state=0)
        pred[test] = model.fit(x[train], y[train]).predict(x[test])
    return pred


def main():
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    for family in sys.argv[2:] or ["conv", "gemm", "pointwise"]:
        x, blind, y, gpu = load(sys.argv[1], family)
        if len(y) == 0:
            print(f"{family}: no rows")
            continue
        learned = held_out_predictions(x, y, gpu)
        gpu_blind = held_out_predictions(x[:, blind], y, gpu)
        for w in WEIGHTS:
            pred = w * learned + (1.0 - w) * gpu_blind
            per_gpu = ", ".join(f"{g} {mape(pred[gpu == g], y[gpu == g]):.1f}"
                                for g in sorted(set(gpu)))
            print(f"{family} learned weight {w:.2f}: all {mape(pred, y):.1f} | {per_gpu}",
                  flush=True)


if __name__ == "__main__":
    main()
