#!/usr/bin/python3
"""Would removing each GPU's level before fitting help a GPU without rows?
(research/notes/accuracy-history.md, "Where the remaining error sits".)

Reads a `cnnperf train --cv leave-gpu-out --export-features` CSV (fold = GPU; baseline_ms with
the host floor as cross-validation fits it). Per op family, held out one GPU at a time, it fits
scikit-learn's histogram gradient boosting on the other GPUs' log ratio (`plain`), and again
after subtracting each training GPU's median log ratio, predicting the held-out GPU with the
mean of those medians (`level-normalized`). Prints the MAPE of the latency per held-out GPU
and over all rows. Needs Debian's python3-sklearn (/usr/bin/python3).

Usage: research/logo_level_study.py FEATURES.csv [FAMILY ...]   (default: conv gemm pointwise)
"""
import sys

import numpy as np
from sklearn.ensemble import HistGradientBoostingRegressor

from feature_export import mape, read_family


def load(path, family):
    _, x, y, gpu = read_family(path, family)
    return (x[:, x.std(0) > 0] if len(y) else x), y, gpu


def main():
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    for family in sys.argv[2:] or ["conv", "gemm", "pointwise"]:
        x, y, gpu = load(sys.argv[1], family)
        if len(y) == 0:
            print(f"{family}: no rows")
            continue
        for mode in ("plain", "level-normalized"):
            pred = np.zeros(len(y))
            per_gpu = []
            for held in sorted(set(gpu)):
                train, test = gpu != held, gpu == held
                target, level = y[train].copy(), 0.0
                if mode == "level-normalized":
                    levels = {g: np.median(y[gpu == g]) for g in set(gpu[train])}
                    target -= np.array([levels[g] for g in gpu[train]])
                    level = float(np.mean(list(levels.values())))
                model = HistGradientBoostingRegressor(max_iter=400, learning_rate=0.1,
                                                      max_leaf_nodes=63, random_state=0)
                pred[test] = model.fit(x[train], target).predict(x[test]) + level
                per_gpu.append(f"{held} {mape(pred[test], y[test]):.1f}")
            print(f"{family} {mode}: all {mape(pred, y):.1f} | " + ", ".join(per_gpu))


if __name__ == "__main__":
    main()
