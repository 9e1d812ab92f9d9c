#!/usr/bin/env python3
"""Prototype: does a step behave like max(sum of host, sum of GPU) or like a sum over ops of
max(host, GPU)? (research/notes/accuracy-history.md, "NAS networks". It led to cnnperf's per_op_overlap term,
fitted there on all rows; this script keeps the in-sample check on one slice.)

For a seeded sample of HELP's rows of one space, GPU and batch, it reads every layer's
predicted kernel time from `cnnperf predict --format json`, then fits host ms per op,
heavy-op factor, kernel-time scale and fixed ms (Nelder-Mead on mean |log error|, in sample)
for step = fixed + alpha x sum_i max(host_i, gpu_i) + (1 - alpha) x max(sum host, sum gpu),
alpha 0 (cnnperf's form), 0.5 and 1. Needs numpy and scipy (Debian: python3-numpy,
python3-scipy).

    python3 research/proto_per_op_overlap.py --cnnperf build/cnnperf fbnet titanxp 64
"""
import argparse
import csv
import gzip
import json
import os
import random
import subprocess

import numpy as np
from scipy.optimize import minimize

HEAVY = {"conv2d", "linear", "batchnorm", "layernorm", "channel_shuffle"}


def main():
    here = os.path.dirname(os.path.abspath(__file__))
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("space", choices=["fbnet", "nasbench201"])
    ap.add_argument("gpu_key", help="HELP's device key, e.g. titanxp")
    ap.add_argument("batch")
    ap.add_argument("--cnnperf", required=True)
    ap.add_argument("--sample", type=int, default=150)
    ap.add_argument("--data", default=os.path.join(here, "..", "datasets", "e2e_help_nas.csv.gz"))
    args = ap.parse_args()
    with gzip.open(args.data, "rt", newline="") as f:
        rows = [r for r in csv.DictReader(f) if r["space"] == args.space
                and r["gpu"] == args.gpu_key and r["batch"] == args.batch]
    random.seed(2)
    rows = random.sample(rows, min(args.sample, len(rows)))
    prefix = "nb201:" if args.space == "nasbench201" else "fbnet:"
    ops, measured = [], []
    for r in rows:
        out = subprocess.run([args.cnnperf, "predict", "--net", prefix + r["arch"], "--gpu",
                              r["gpu_name"], "--batch", r["batch"], "--format", "json"],
                             capture_output=True, text=True, check=True).stdout
        layers = json.loads(out)["layers"]
        ops.append([(l["latency_ms"], l["op"] in HEAVY) for l in layers if l.get("latency_ms", 0) > 0])
        measured.append(float(r["latency_ms"]))
    measured = np.array(measured)

    def step(v, alpha):
        host, factor, scale, fixed = np.exp(v[0]), 1 + 4 / (1 + np.exp(-v[1])), np.exp(v[2]), np.exp(v[3])
        out = []
        for row in ops:
            h = np.array([host * (factor if heavy else 1) for _, heavy in row])
            g = np.array([scale * ms for ms, _ in row])
            out.append(fixed + alpha * np.maximum(h, g).sum() + (1 - alpha) * max(h.sum(), g.sum()))
        return np.array(out)

    print("| alpha | MAPE % (in sample) | Spearman |")
    print("|---:|---:|---:|")
    for alpha in (0.0, 0.5, 1.0):
        res = minimize(lambda v: np.mean(np.abs(np.log(step(v, alpha) / measured))),
                       [np.log(0.011), 1.0, 0.0, np.log(1.5)], method="Nelder-Mead",
                       options={"maxiter": 2000})
        p = step(res.x, alpha)
        rank = np.corrcoef(np.argsort(np.argsort(p)), np.argsort(np.argsort(measured)))[0, 1]
        print("| %.1f | %.2f | %.3f |" % (alpha, 100 * np.mean(np.abs(p - measured) / measured), rank))


if __name__ == "__main__":
    main()
