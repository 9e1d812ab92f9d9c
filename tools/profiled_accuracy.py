#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Predicted kernel time against `cnnperf profile`'s measured kernel time.

For each profile CSV, runs `cnnperf predict --layers FILE --runtime cudnn` with the analytical
baseline and with the bundled learned model, and prints a Markdown table: per-layer MAPE and
median error of kernel_ms against the measured latency_ms, the network's summed convolution
time (each shape times its `duplicates`), and the energy MAPE. Python standard library only.

    python3 tools/profiled_accuracy.py [--cnnperf build/cnnperf] datasets/profiled/h100/*.csv
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


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cnnperf", default="build/cnnperf")
    parser.add_argument("files", nargs="+")
    args = parser.parse_args()
    print("| file | model | layers | MAPE % | median % | conv sum predicted / measured ms | "
          "energy MAPE % |")
    print("|---|---|---|---|---|---|---|")
    for path in args.files:
        for name, extra in MODELS:
            rows = [r for r in predict(args.cnnperf, path, extra) if r["latency_ms"]]
            errors = [pct(float(r["kernel_ms"]), float(r["latency_ms"])) for r in rows]
            energy = [pct(float(r["predicted_energy_mj"]), float(r["energy_mj"]))
                      for r in rows if r["energy_mj"] and r["predicted_energy_mj"]]
            predicted = sum(float(r["kernel_ms"]) * int(r["duplicates"]) for r in rows)
            measured = sum(float(r["latency_ms"]) * int(r["duplicates"]) for r in rows)
            energy_text = f"{statistics.mean(energy):.1f}" if energy else ""
            print(f"| {path.split('/')[-1]} | {name} | {len(rows)} | "
                  f"{statistics.mean(errors):.1f} | {statistics.median(errors):.1f} | "
                  f"{predicted:.3f} / {measured:.3f} ({(predicted / measured - 1) * 100:+.1f} %) | "
                  f"{energy_text} |")


if __name__ == "__main__":
    main()
