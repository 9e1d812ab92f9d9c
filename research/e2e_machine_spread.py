#!/usr/bin/env python3
"""How far apart the end-to-end measurements of the same GPU model are (datasets/e2e_torchvision.csv).

Prints the spread of step times within one run (stdev / median), then, for the GPU measured
on several machines or runs (the RTX 2080 Ti), the mean
|a/b - 1| between every pair of runs over the configurations both measured, and the lowest
MAPE any one prediction per configuration could reach on all its runs (a floor for a model
that sees only the GPU). Then the median ratio of the TITAN RTX's step time to the RTX 2080
Ti's (same TU102 chip) per precision and mode. Standard library only.

Usage: python3 research/e2e_machine_spread.py [--data datasets/e2e_torchvision.csv]
"""
import argparse
import csv
import itertools
import os
import statistics
import sys
from collections import defaultdict

GPU = "GeForce RTX 2080 Ti"
OTHER = "TITAN RTX"
# Networks whose eager step is GPU-bound at batch 12 (host-bound small networks excluded).
GPU_BOUND = ("vgg", "resnet18", "resnet34", "resnet50", "resnet101", "resnet152", "wide_resnet")


def best_constant_mape(values):
    # The APE sum is piecewise linear in the prediction c, so its minimum over c lies at one of
    # the measured values.
    return min(sum(abs(v / c - 1) for v in values) / len(values) for c in values)


def main():
    here = os.path.dirname(os.path.abspath(__file__))
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--data", default=os.path.join(here, "..", "datasets", "e2e_torchvision.csv"))
    args = ap.parse_args()
    with open(args.data, newline="") as f:
        rows = [r for r in csv.DictReader(f) if r["num_gpus"] == "1"]

    within = [float(r["stdev_ms"]) / float(r["latency_ms"]) for r in rows
              if r["stdev_ms"] and float(r["latency_ms"]) > 0]
    print("Within one run: per-iteration stdev / median step time, %d single-GPU rows: median "
          "%.1f %%, mean %.1f %%\n" % (len(within), statistics.median(within) * 100,
                                       statistics.mean(within) * 100))

    runs = defaultdict(dict)  # (network, dtype, mode) -> run -> latency_ms
    for r in rows:
        if r["gpu"] == GPU:
            run = "%s, %s" % (r["source_dir"], r["result_format"])
            runs[(r["network"], r["dtype"], r["mode"])][run] = float(r["latency_ms"])
    names = sorted({run for per in runs.values() for run in per})
    print("## %s: runs of the same GPU model\n" % GPU)
    print("| run a | run b | configurations | mean \\|a/b - 1\\| % |")
    print("|---|---|---:|---:|")
    for a, b in itertools.combinations(names, 2):
        pairs = [(per[a], per[b]) for per in runs.values() if a in per and b in per]
        if pairs:
            spread = statistics.mean(abs(x / y - 1) for x, y in pairs) * 100
            print("| %s | %s | %d | %.1f |" % (a, b, len(pairs), spread))
    multi = [list(per.values()) for per in runs.values() if len(per) > 1]
    floor = statistics.mean(best_constant_mape(v) for v in multi) * 100
    print("\nBest one prediction per configuration, MAPE over its %d runs' rows: %.1f %% "
          "(%d configurations measured more than once)\n" %
          (len(names), floor, len(multi)))

    v2 = defaultdict(dict)  # (network, dtype, mode) -> machine -> latency_ms
    for r in rows:
        if r["result_format"].startswith("v2"):
            v2[(r["network"], r["dtype"], r["mode"])][(r["gpu"], r["source_dir"])] = \
                float(r["latency_ms"])
    others = sorted({m for per in v2.values() for m in per if m[0] == GPU})
    mine = [m for per in v2.values() for m in per if m[0] == OTHER][:1]
    if not mine:
        return 0
    print("## %s step time / %s step time (same chip), median\n" % (OTHER, GPU))
    print("| %s machine | dtype | mode | all networks | GPU-bound networks |" % GPU)
    print("|---|---|---|---:|---:|")
    for machine in others:
        for dtype, mode in itertools.product(("fp32", "fp16"), ("inference", "training")):
            ratios, bound = [], []
            for (net, dt, md), per in v2.items():
                if dt == dtype and md == mode and mine[0] in per and machine in per:
                    ratio = per[mine[0]] / per[machine]
                    ratios.append(ratio)
                    if net.startswith(GPU_BOUND):
                        bound.append(ratio)
            if ratios:
                print("| %s | %s | %s | %.2f | %.2f |" %
                      (machine[1], dtype, mode, statistics.median(ratios),
                       statistics.median(bound) if bound else float("nan")))
    return 0


if __name__ == "__main__":
    sys.exit(main())
