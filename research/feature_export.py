"""Reads a `cnnperf train --export-features` CSV for the study scripts in research/.

The columns between `fold` and `baseline_ms` are the features; `log_ratio` is the target
(log of measured over baseline latency). Plain numpy, no scikit-learn.
"""
import csv

import numpy as np


def read_family(path, family):
    """Feature names, feature matrix, log ratios and GPU names of one op family's rows."""
    with open(path, newline="") as f:
        reader = csv.reader(f)
        header = next(reader)
        rows = [r for r in reader if r[0] == family]
    first, last = header.index("fold") + 1, header.index("baseline_ms")
    x = np.array([[float(v) for v in r[first:last]] for r in rows])
    y = np.array([float(r[header.index("log_ratio")]) for r in rows])
    gpu = np.array([r[header.index("gpu")] for r in rows])
    return header[first:last], x, y, gpu


def mape(pred, y):
    """MAPE in % of the latency, from predicted and measured log ratios."""
    return 100.0 * np.mean(np.abs(np.exp(pred - y) - 1.0))
