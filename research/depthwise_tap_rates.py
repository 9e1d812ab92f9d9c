#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""What a depthwise tap costs in SM cycles, by layout and precision, in `cnnperf profile` rows.

The analytical model prices a depthwise convolution at no less than
outputs x taps x depthwise_sm_cycles_per_tap / (SMs x boost clock), one rate (0.18) for every
GPU, layout and precision, chosen on HELP's FBNet steps (PyTorch, fp32, NCHW, Pascal and
Turing; docs/methodology.md). This reads profiled depthwise rows (groups == c_in > 1; the
kernel time CUPTI measured, transposes and all), and prints per row and per (layout, dtype,
stride) the measured time in SM cycles per tap, and the model's kernel_ms beside the measured
one (`cnnperf predict --layers ... --runtime cudnn`).

    python3 research/depthwise_tap_rates.py datasets/profiled/h100/layout/mobilenet_v2_b32_fp*_nchw_nhwc.csv

With --timm FILE (datasets/e2e_timm.csv.gz) it also prints, per GPU and memory format,
`predict --net`'s eager AMP inference step over timm's measured one (geometric mean) for the
networks with depthwise convolutions (MobileNet, MnasNet, EfficientNet) and for the others,
each as `predict --net NET --gpu G --batch B --precision fp16 --input-on-gpu --layout L`
gives it with the bundled eager overhead (fitted on these rows: in sample). About a minute.

Python standard library only; runs build/cnnperf (or --cnnperf).
"""
import argparse
import csv
import gzip
import json
import os
import statistics
import subprocess
import sys
import tempfile
from collections import defaultdict

from gpu_db import gpus_by_name

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def predicted_rows(cnnperf, path):
    with tempfile.TemporaryDirectory() as tmp:
        out = os.path.join(tmp, "pred.csv")
        subprocess.run([cnnperf, "predict", "--layers", path, "--runtime", "cudnn", "--format",
                        "csv", "-o", out], check=True, stderr=subprocess.DEVNULL)
        with open(out, newline="") as f:
            return list(csv.DictReader(f))


DEPTHWISE_NETWORKS = ("mobilenet", "mnasnet", "efficientnet")
TIMM_GPUS = {"NVIDIA GeForce RTX 3090": "rtx3090", "NVIDIA GeForce RTX 4090": "rtx4090",
             "NVIDIA GeForce RTX 5090": "rtx5090"}


def timm_steps(cnnperf, path):
    """(gpu, memory format, depthwise or other) -> predicted / measured of each eager step."""
    with gzip.open(path, "rt", newline="") as f:
        rows = [r for r in csv.DictReader(f) if r["zoo_network"] and r["runtime"] == "pytorch"
                and r["mode"] == "inference" and r["precision"] == "amp"]
    out = defaultdict(list)
    for r in rows:
        net = r["zoo_network"]
        cmd = [cnnperf, "predict", "--net", net, "--gpu", TIMM_GPUS.get(r["gpu"], r["gpu"]),
               "--batch", r["batch"], "--precision", "fp16", "--input-on-gpu", "--layout",
               r["memory_format"], "--format", "json"]
        if net.startswith("efficientnet") or net == "inception_v3":
            cmd += ["--input-size", f"{r['input_h']}x{r['input_w']}"]
        step = json.loads(subprocess.run(cmd, check=True, capture_output=True,
                                         text=True).stdout)["total"]["latency_ms"]
        kind = "depthwise" if net.startswith(DEPTHWISE_NETWORKS) else "other"
        out[(TIMM_GPUS.get(r["gpu"], r["gpu"]), r["memory_format"], kind)].append(
            step / float(r["latency_ms"]))
    return out


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("files", nargs="+")
    ap.add_argument("--cnnperf", default=os.path.join(ROOT, "build", "cnnperf"))
    ap.add_argument("--timm", help="timm's end-to-end rows (datasets/e2e_timm.csv.gz)")
    args = ap.parse_args()
    specs = gpus_by_name()
    groups = defaultdict(list)
    print("| file | layout | dtype | c | h_in | stride | kernels | measured ms | predicted ms | "
          "SM cycles per tap |")
    print("|---|---|---|---:|---:|---:|---:|---:|---:|---:|")
    for path in args.files:
        for r in predicted_rows(args.cnnperf, path):
            c, groups_n = int(r["c_in"]), int(r["groups"])
            if groups_n != c or c <= 1:
                continue
            g = specs[r["gpu"].lower()]
            b, h, w = int(r["batch"]), int(r["h_in"]), int(r["w_in"])
            kh, kw = int(r["kernel_h"]), int(r["kernel_w"])
            sh, sw = int(r["stride_h"]), int(r["stride_w"])
            ph, pw = int(r["pad_h"]), int(r["pad_w"])
            ho, wo = (h + 2 * ph - kh) // sh + 1, (w + 2 * pw - kw) // sw + 1
            taps = b * c * ho * wo * kh * kw
            measured = float(r["latency_ms"])
            cycles = measured * g["sm_count"] * g["boost_clock_mhz"] * 1e3 / taps
            layout = r.get("layout") or "nchw"
            groups[(layout, r["dtype"], sh)].append((cycles, float(r["kernel_ms"]) / measured))
            print(f"| {os.path.basename(path)} | {layout} | {r['dtype']} | {c} | {h} | {sh} | "
                  f"{r.get('kernels_per_launch', '')} | {measured:.4f} | {float(r['kernel_ms']):.4f} "
                  f"| {cycles:.3f} |")
    print()
    print("| layout | dtype | stride | rows | median SM cycles per tap | median predicted / measured |")
    print("|---|---|---:|---:|---:|---:|")
    for (layout, dtype, stride), v in sorted(groups.items()):
        print(f"| {layout} | {dtype} | {stride} | {len(v)} | "
              f"{statistics.median(x for x, _ in v):.3f} | {statistics.median(y for _, y in v):.2f} |")
    if args.timm:
        print()
        print("| GPU | memory format | networks | steps | predicted / measured (geometric mean) |")
        print("|---|---|---|---:|---:|")
        for (gpu, layout, kind), v in sorted(timm_steps(args.cnnperf, args.timm).items()):
            print(f"| {gpu} | {layout} | {kind} | {len(v)} | "
                  f"{statistics.geometric_mean(v):.3f} |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
