#!/usr/bin/env python3
"""Host cost of each kind of op in HELP's batch-1 NAS rows (datasets/e2e_help_nas.csv.gz).

Least squares of the measured step on how many edges (NAS-Bench-201) or blocks (FBNet) of
each kind a network has; `skip` is the baseline, so each coefficient is what that kind adds
over it. NAS-Bench-201 repeats its cell 15 times, so its coefficients are divided by 15: the
cost of one edge. docs/methodology.md ("End-to-end latency") quotes the RTX 2080 Ti's.
With --cnnperf, the same fit on cnnperf's predictions (latency and kernel time) of a seeded
sample of one GPU's rows, next to the measured one (research/notes/accuracy-history.md, "NAS networks").
Needs numpy (Debian: python3-numpy).

    python3 research/help_op_costs.py [--batch 1]
    python3 research/help_op_costs.py --batch 64 --space fbnet --gpu-key titanxp \
        --cnnperf build/cnnperf --sample 300
"""
import argparse
import csv
import gzip
import json
import os
import random
import subprocess

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
    ap.add_argument("--cnnperf", help="compare with this cnnperf binary's predictions")
    ap.add_argument("--space", default="fbnet", help="with --cnnperf: fbnet or nasbench201")
    ap.add_argument("--gpu-key", default="titanxp", help="with --cnnperf: HELP's device key")
    ap.add_argument("--sample", type=int, default=300, help="with --cnnperf: rows predicted")
    args = ap.parse_args()
    if args.cnnperf:
        compare(args)
        return
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


def fit(x, y, space):
    """Constant and the cost each kind adds over skip (ms), by least squares."""
    a = np.hstack([np.ones((len(y), 1)), np.array(x, float)[:, :-1]])
    coef, *_ = np.linalg.lstsq(a, np.array(y), rcond=None)
    return coef / np.array([1] + [CELLS if space == "nasbench201" else 1] * (len(coef) - 1))


def compare(args):
    with gzip.open(args.data, "rt", newline="") as f:
        rows = [r for r in csv.DictReader(f) if r["space"] == args.space
                and r["gpu"] == args.gpu_key and r["batch"] == args.batch]
    if not rows:
        raise SystemExit("no rows of %s on %s at batch %s" % (args.space, args.gpu_key, args.batch))
    random.seed(1)
    rows = random.sample(rows, min(args.sample, len(rows)))
    prefix = "nb201:" if args.space == "nasbench201" else "fbnet:"
    x, measured, latency, kernel = [], [], [], []
    for r in rows:
        out = subprocess.run([args.cnnperf, "predict", "--net", prefix + r["arch"], "--gpu",
                              r["gpu_name"], "--batch", r["batch"], "--format", "json"],
                             capture_output=True, text=True, check=True).stdout
        total = json.loads(out)["total"]
        x.append(counts(args.space, r["arch"]))
        measured.append(float(r["latency_ms"]))
        latency.append(total["latency_ms"])
        kernel.append(total["kernel_ms"])
    names = NB201_OPS if args.space == "nasbench201" else FBNET_BLOCKS
    print("| %s, %s, batch %s, %d rows | constant | %s |" % (
        args.space, rows[0]["gpu_name"], args.batch, len(rows), " | ".join(names[:-1])))
    print("|---|" + "---:|" * len(names))
    for label, y in (("measured", measured), ("predicted latency_ms", latency),
                     ("predicted kernel_ms", kernel)):
        print("| %s | %s |" % (label, " | ".join("%.3f" % c for c in fit(x, y, args.space))))
    m = np.array(measured)
    print("\nMAPE of latency_ms: %.1f %%" % (100 * np.mean(np.abs(np.array(latency) - m) / m)))


if __name__ == "__main__":
    main()
