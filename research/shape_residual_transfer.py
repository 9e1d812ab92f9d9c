#!/usr/bin/env python3
"""Does a shape's residual on the training GPUs help predict it on a held-out GPU?
(research/notes/accuracy-history.md, "Where the remaining error sits".)

Reads pairs of `predict --layers --format csv` outputs of one leave-one-GPU-out model each:
HELD the held-out GPU's rows, TRAIN the training GPUs' rows (in-sample). Each held-out
prediction is multiplied by exp(a x the mean log(measured / predicted) of the same shape on
the training GPUs); prints the MAPE for several a (a = 0: the model alone) and, per held-out
file, the median measured / predicted. Standard library only.

Usage: research/shape_residual_transfer.py HELD1.csv TRAIN1.csv [HELD2.csv TRAIN2.csv ...]
"""
import csv
import math
import statistics
import sys
from collections import defaultdict

KEY = ["op", "batch", "c_in", "h_in", "w_in", "c_out", "kernel_h", "stride_h", "pass", "dtype"]
WEIGHTS = (0.0, 0.5, 1.0, 1.5, 2.0)


def rows(path):
    with open(path, newline="") as f:
        return list(csv.DictReader(f))


def main(args) -> int:
    if len(args) < 2 or len(args) % 2:
        print(__doc__, file=sys.stderr)
        return 2
    ape = {a: [] for a in WEIGHTS}
    for held, train in zip(args[0::2], args[1::2]):
        residuals = defaultdict(list)
        for r in rows(train):
            residuals[tuple(r[k] for k in KEY)].append(
                math.log(float(r["latency_ms"]) / float(r["predicted_latency_ms"])))
        ratios = []
        for r in rows(held):
            measured, predicted = float(r["latency_ms"]), float(r["predicted_latency_ms"])
            ratios.append(measured / predicted)
            res = residuals.get(tuple(r[k] for k in KEY))
            mean_res = sum(res) / len(res) if res else 0.0
            for a in WEIGHTS:
                ape[a].append(abs(predicted * math.exp(a * mean_res) / measured - 1) * 100)
        print(f"{held}: {len(ratios)} rows, median measured/predicted "
              f"{statistics.median(ratios):.3f}")
    print(" ".join(f"a={a}: MAPE {sum(v) / len(v):.2f} %" for a, v in ape.items()))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
