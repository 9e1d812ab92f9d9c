#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Achieved DRAM bandwidth of NeuSight's largest elementwise ops, per GPU, against its spec.

The analytical model prices every memory-bound op at one share of the spec bandwidth
(`AnalyticalParams::memory_efficiency`, 0.80). This reads the measured fp32 `relu`, `tanh`,
`gelu` (one read, one write per element) and `add`, `mul` (two reads, one write) rows of
NeuSight's training and test sets, keeps the ops of 64 MiB of traffic or more (far beyond
every GPU's L2, so DRAM-bound), and prints per GPU the median traffic / measured time over
the spec bandwidth (models/gpus.json), with the 10th and 90th percentiles.

    python3 research/achieved_bandwidth.py
"""
import csv
import gzip
import os
import statistics
from collections import defaultdict

from gpu_db import gpus_by_name

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
FILES = ["datasets/layers_neusight.csv.gz", "datasets/layers_neusight_test.csv.gz"]
ACCESSES = {"relu": 2, "tanh": 2, "gelu": 2, "add": 3, "mul": 3}  # fp32 words per element
MIN_BYTES = 64 * 2**20


def spec_bandwidth_gbs():
    return {name: (g["name"], g["architecture"], g["memory_bandwidth_gbs"])
            for name, g in gpus_by_name().items()}


def main():
    spec = spec_bandwidth_gbs()
    shares = defaultdict(list)
    for path in FILES:
        with gzip.open(os.path.join(ROOT, path), "rt", newline="") as f:
            for r in csv.DictReader(f):
                words = ACCESSES.get(r["op"])
                if words is None or r["dtype"] != "fp32" or r["pass"] != "forward":
                    continue
                elements = int(r["batch"]) * int(r["c_in"]) * int(r["h_in"]) * int(r["w_in"])
                moved = 4 * words * elements
                if moved < MIN_BYTES:
                    continue
                gpu = spec.get(r["gpu"].lower())
                if gpu is None:
                    raise SystemExit(f"achieved_bandwidth: {path}: GPU {r['gpu']!r} not in models/gpus.json")
                gbs = moved / (float(r["latency_ms"]) * 1e6)
                shares[gpu].append(gbs / gpu[2])
    print("| GPU | architecture | spec GB/s | ops | achieved / spec, median | 10th-90th percentile |")
    print("|---|---|---:|---:|---:|---|")
    for (name, arch, bw), s in sorted(shares.items(), key=lambda kv: kv[0][1]):
        q = statistics.quantiles(s, n=10)
        print(f"| {name} | {arch} | {bw:g} | {len(s)} | {statistics.median(s):.2f} | "
              f"{q[0]:.2f}-{q[-1]:.2f} |")


if __name__ == "__main__":
    main()
