#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Predicted kernel time against `cnnperf profile`'s measured kernel time.

For each profile CSV, runs `cnnperf predict --layers FILE --runtime cudnn` with the analytical
baseline and with the bundled learned model, and prints a Markdown table: per-layer MAPE and
median error of kernel_ms against the measured latency_ms, the network's summed convolution
time (each shape times its `duplicates`), the share of measurements inside the prediction's
80 % interval (latency_ms_lo to latency_ms_hi), and the energy MAPE; a file of several layouts
gets a line per layout. Python standard library only.

    python3 tools/profiled_accuracy.py [--cnnperf build/cnnperf] datasets/profiled/h100/*.csv
    python3 tools/profiled_accuracy.py --layout-pairs datasets/profiled/h100/resnet50_b32_fp{32_run1,32_nhwc,16,16_nhwc}.csv \
        datasets/profiled/h100/layout/*.csv
"""
import argparse
import csv
import io
import statistics
import subprocess
import sys

MODELS = [("analytical", ["--analytical"]),
          ("learned (bundled)", ["--model", "models/cnnperf_default.json"])]


def predict(cnnperf, path, extra):
    run = subprocess.run([cnnperf, "predict", "--layers", path, "--runtime", "cudnn",
                          "--format", "csv"] + extra, capture_output=True, text=True)
    if run.returncode != 0:
        sys.exit(f"{path}: cnnperf predict failed ({run.returncode}): {run.stderr.strip()}")
    return list(csv.DictReader(io.StringIO(run.stdout)))


def pct(pred, truth):
    return abs(pred / truth - 1.0) * 100.0


def layout_pairs(cnnperf, files):
    """The NCHW/NHWC twins of the files: what the transposes cost, measured and modelled.

    A shape measured in both layouts (same layer name and dtype, in one file or two) whose
    NCHW run launched cuDNN's nchwToNhwc/nhwcToNchw kernels: the measured NCHW minus NHWC time
    against the analytical model's (its main kernels are the same in both layouts, so the
    difference is its transpose term).
    """
    rows = []
    for path in files:
        rows += predict(cnnperf, path, ["--analytical"])
    nhwc = {(r["layer_name"], r["dtype"], r["batch"]): r for r in rows
            if r.get("layout") == "nhwc" and r["latency_ms"]}
    pairs = transposed = extra = 0
    measured = modelled = 0.0
    ratios = []
    for r in rows:
        twin = nhwc.get((r["layer_name"], r["dtype"], r["batch"]))
        if r.get("layout") != "nchw" or not r["latency_ms"] or twin is None:
            continue
        pairs += 1
        p = float(r["kernel_ms"]) - float(twin["kernel_ms"])
        if "nchwToNhwc" not in r["kernel_sequence"] and "nhwcToNchw" not in r["kernel_sequence"]:
            extra += p > 0
            continue
        transposed += 1
        m = float(r["latency_ms"]) - float(twin["latency_ms"])
        measured += m
        modelled += p
        if p > 0:
            ratios.append(m / p)
    print(f"NCHW shapes with an NHWC twin: {pairs}; with transpose kernels: {transposed}")
    print(f"NCHW minus NHWC over those: measured {measured:.2f} ms, modelled {modelled:.2f} ms; "
          f"median measured/modelled per shape {statistics.median(ratios):.2f} "
          f"({len(ratios)} shapes the model transposes); the model transposes {extra} shapes "
          f"that ran without")


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cnnperf", default="build/cnnperf")
    parser.add_argument("--layout-pairs", action="store_true",
                        help="instead: the transposes' cost on the NCHW/NHWC twins of the files")
    parser.add_argument("--summary", action="store_true",
                        help="only the lines of all files pooled, per layout and model")
    parser.add_argument("files", nargs="+")
    args = parser.parse_args()
    if args.layout_pairs:
        layout_pairs(args.cnnperf, args.files)
        return
    print("| file | model | layers | MAPE % | median % | conv sum predicted / measured ms | "
          "in 80 % interval % | energy MAPE % |")
    print("|---|---|---|---|---|---|---|---|")
    pooled = {}
    for path in args.files:
        for name, extra in MODELS:
            predicted_rows = [r for r in predict(args.cnnperf, path, extra) if r["latency_ms"]]
            layouts = sorted({r.get("layout", "") for r in predicted_rows})
            for layout in layouts:
                rows = [r for r in predicted_rows if r.get("layout", "") == layout]
                label = path.split("/")[-1] + (f" ({layout})" if len(layouts) > 1 else "")
                if not args.summary:
                    print_line(label, name, rows)
                pooled.setdefault((layout, name), []).extend(rows)
    if len(args.files) > 1 or args.summary:
        for (layout, name), rows in sorted(pooled.items()):
            print_line(f"all {len(args.files)} files" + (f" ({layout})" if layout else ""), name,
                       rows)


def print_line(label, name, rows):
    errors = [pct(float(r["kernel_ms"]), float(r["latency_ms"])) for r in rows]
    energy = [pct(float(r["predicted_energy_mj"]), float(r["energy_mj"]))
              for r in rows if r["energy_mj"] and r["predicted_energy_mj"]]
    predicted = sum(float(r["kernel_ms"]) * int(r["duplicates"]) for r in rows)
    measured = sum(float(r["latency_ms"]) * int(r["duplicates"]) for r in rows)
    energy_text = f"{statistics.mean(energy):.1f}" if energy else ""
    print(f"| {label} | {name} | {len(rows)} | "
          f"{statistics.mean(errors):.1f} | {statistics.median(errors):.1f} | "
          f"{predicted:.3f} / {measured:.3f} ({(predicted / measured - 1) * 100:+.1f} %) | "
          f"{coverage_text(rows)} | {energy_text} |")


def coverage_text(rows):
    """Share of the measured kernel times inside the predicted 80 % interval, over the rows
    that carry one (the interval bounds latency_ms, which under the cudnn runtime is kernel_ms
    plus the gaps between kernels)."""
    bounded = [r for r in rows if r["latency_ms_lo"] and r["latency_ms_hi"]]
    if not bounded:
        return ""
    inside = sum(float(r["latency_ms_lo"]) <= float(r["latency_ms"]) <= float(r["latency_ms_hi"])
                 for r in bounded)
    text = f"{100.0 * inside / len(bounded):.1f}"
    return text if len(bounded) == len(rows) else f"{text} ({len(bounded)} rows)"


if __name__ == "__main__":
    main()
