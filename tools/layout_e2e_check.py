#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""`predict --layout nhwc` against timm's channels-last eager AMP steps, which no model is fitted on.

datasets/e2e_timm.csv.gz holds timm's eager (`runtime` pytorch) AMP steps of zoo networks in
both memory formats; the eager overhead (`cnnperf train e2e`) is fitted on the NCHW ones only,
so the NHWC steps are held out. For every NHWC step this predicts it with `--layout nhwc`;
where the same network, GPU and mode were also measured NCHW (at the same batch, else the NCHW
step of the largest batch), it compares the measured time per image NHWC / NCHW with the
predicted one (`--layout nchw` at the NCHW step's batch).
Prints, per GPU and mode: steps, MAPE and median predicted / measured of the NHWC steps, and
the median of the two ratios (docs/accuracy.md, "Layouts end to end").

    python3 tools/layout_e2e_check.py --cnnperf build/cnnperf [--data datasets/e2e_timm.csv.gz]
"""
import argparse
import csv
import gzip
import json
import os
import statistics
import subprocess
import sys
from collections import defaultdict


def predict_ms(cnnperf, env, net, gpu, batch, mode, layout):
    cmd = [cnnperf, "predict", "--net", net, "--gpu", gpu, "--batch", str(batch), "--precision",
           "fp16", "--mode", mode, "--layout", layout, "--format", "json",
           "--input-on-gpu"]  # timm's benchmark makes its input on the GPU: no copy timed
    done = subprocess.run(cmd, capture_output=True, text=True, env=env, check=False)
    if done.returncode != 0:
        sys.exit(f"layout_e2e_check: {' '.join(cmd)} failed: {done.stderr.strip()}")
    return json.loads(done.stdout)["total"]["latency_ms"]


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--cnnperf", default="build/cnnperf")
    parser.add_argument("--data", default="datasets/e2e_timm.csv.gz")
    args = parser.parse_args()
    repo = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    env = dict(os.environ, CNNPERF_DATA_DIR=os.environ.get("CNNPERF_DATA_DIR", repo))
    opener = gzip.open if args.data.endswith(".gz") else open
    with opener(args.data, "rt", newline="") as f:
        rows = [r for r in csv.DictReader(f)
                if r["zoo_network"] and r["runtime"] == "pytorch" and r["num_gpus"] == "1"
                and r["precision"] == "amp"]
    # (timm's model, PyTorch version, zoo network, gpu, mode) -> layout -> batch -> measured ms;
    # several timm models (weights, variants) can be one zoo network, and timm measured each
    # GPU under several PyTorch versions: a step is paired within its model and version.
    steps = defaultdict(lambda: defaultdict(dict))
    for r in rows:
        key = (r["network"], r["framework"], r["zoo_network"], r["gpu"], r["mode"])
        steps[key][r["memory_format"]][int(r["batch"])] = float(r["latency_ms"])
    groups = defaultdict(lambda: {"ape": [], "ratio": [], "measured": [], "predicted": []})
    for (_, _, net, gpu, mode), by_layout in sorted(steps.items()):
        for batch, measured in sorted(by_layout.get("nhwc", {}).items()):
            g = groups[(gpu, mode)]
            nhwc = predict_ms(args.cnnperf, env, net, gpu, batch, mode, "nhwc")
            g["ape"].append(abs(nhwc / measured - 1))
            g["ratio"].append(nhwc / measured)
            nchw_steps = by_layout.get("nchw", {})
            if not nchw_steps:
                continue
            # The NCHW step at the same batch, else the largest measured (per image).
            nchw_batch = batch if batch in nchw_steps else max(nchw_steps)
            nchw_measured = nchw_steps[nchw_batch]
            nchw = predict_ms(args.cnnperf, env, net, gpu, nchw_batch, mode, "nchw")
            g["measured"].append((measured / batch) / (nchw_measured / nchw_batch))
            g["predicted"].append((nhwc / batch) / (nchw / nchw_batch))
    print("gpu,mode,nhwc_steps,nhwc_mape_pct,nhwc_median_predicted_over_measured,"
          "pairs,median_measured_nhwc_over_nchw,median_predicted_nhwc_over_nchw")
    for (gpu, mode), g in sorted(groups.items()):
        pairs = len(g["measured"])
        print(f"{gpu},{mode},{len(g['ape'])},{100 * statistics.mean(g['ape']):.1f},"
              f"{statistics.median(g['ratio']):.3f},{pairs},"
              + (f"{statistics.median(g['measured']):.3f},{statistics.median(g['predicted']):.3f}"
                 if pairs else ","))


if __name__ == "__main__":
    main()
