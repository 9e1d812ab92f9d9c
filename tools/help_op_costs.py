#!/usr/bin/env python3
"""Host cost of each kind of op in HELP's batch-1 NAS rows (datasets/e2e_help_nas.csv.gz).

Least squares of the measured step on how many edges (NAS-Bench-201) or blocks (FBNet) of
each kind a network has; `skip` is the baseline, so each coefficient is what that kind adds
over it. NAS-Bench-201 repeats its cell 15 times, so its coefficients are divided by 15: the
cost of one edge. docs/methodology.md ("End-to-end latency") quotes the RTX 2080 Ti's.
Needs numpy (Debian: python3-numpy).

    python3 tools/help_op_costs.py [--batch 1]
"""
import argparse
import csv
import gzip
import os

import numpy as np

NB201_OPS = ["nor_conv_3x3", "nor_conv_1x1", "avg_pool_3x3", "none", "skip_connect"]
FBNET_BLOCKS = ["k3_e1", "k3_e1_g2", "k3_e3", "k3_e6", "k5_e1", "k5_e1_g2", "k5_e3", "k5_e6",
                "skip"]
CELLS = 15


def counts(space, arch):
    if space == "nasbench201":
        ops = [t.split("~")[0] for t in arch.replace("+", "|").split("|") if t]
        return [ops.count(o) for o in NB201_OPS]
    blocks = arch.split()
    return [blocks.count(b) for b in FBNET_BLOCKS]


def main():
    here = os.path.dirname(os.path.abspath(__file__))
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--data", default=os.path.join(here, "..", "datasets", "e2e_help_nas.csv.gz"))
    ap.add_argument("--batch", default="1")
    args = ap.parse_args()
    groups = {}
    with gzip.open(args.data, "rt", newline="") as f:
        for r in csv.DictReader(f):
            if r["batch"] != args.batch:
                continue
            key = (r["space"], r["gpu_name"])
            groups.setdefault(key, ([], []))
            groups[key][0].append(counts(r["space"], r["arch"]))
            groups[key][1].append(float(r["latency_ms"]))
    print("| space | GPU | rows | step ms (mean) | fit MAPE % | us added over skip |")
    print("|---|---|---:|---:|---:|---|")
    for (space, gpu), (x, y) in sorted(groups.items()):
        x = np.array(x, float)
        y = np.array(y)
        a = np.hstack([np.ones((len(y), 1)), x[:, :-1]])  # the kinds sum to a constant
        coef, *_ = np.linalg.lstsq(a, y, rcond=None)
        mape = 100 * np.mean(np.abs(a @ coef - y) / y)
        names = NB201_OPS if space == "nasbench201" else FBNET_BLOCKS
        per = CELLS if space == "nasbench201" else 1
        added = ", ".join("%s %.0f" % (n, 1000 * c / per) for n, c in zip(names, coef[1:]))
        print("| %s | %s | %d | %.2f | %.1f | %s |" % (space, gpu, len(y), y.mean(), mape, added))


if __name__ == "__main__":
    main()
