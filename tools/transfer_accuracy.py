#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""`predict --from` (a layer measured on GPU A carried to GPU B) against predicting B alone.

NeuSight's conv2d and linear rows (datasets/layers_neusight.csv.gz) hold the same layer
shapes, from the same source, measured on several GPUs. For every ordered pair (A, B) of GPUs
sharing shapes, B is held out: its measurement of each shared shape is scored against
  (a) `cnnperf predict --layers A_rows.csv --gpu B`: the model on B alone (predicted latency_ms,
      kernel plus the pytorch runtime's op overhead, as docs/accuracy.md scores the model), and
  (b) `cnnperf predict --from A_rows.csv --gpu B`: A's measurement x the model's kernel_ms on B
      / on A (kernel_ms; A's measurement already holds what its harness adds).
Prints Markdown tables of MAPE %: per target GPU B (rows of every A), per op and overall,
then per pair; then, per pair and op, the ratio A / B of the measurements and of the model
(what --from assumes the measurements follow). --model adds the bundled learned model, which was fitted on these rows (in sample).

    python3 tools/transfer_accuracy.py --cnnperf build/cnnperf [--model models/cnnperf_default.json]
"""
import argparse
import collections
import csv
import gzip
import os
import statistics
import subprocess
import sys
import tempfile

LAYER_COLUMNS = ["op", "batch", "c_in", "h_in", "w_in", "c_out", "kernel_h", "kernel_w",
                 "stride_h", "stride_w", "pad_h", "pad_w", "dilation_h", "dilation_w", "groups",
                 "bias", "dtype", "pass"]
OPS = ("conv2d", "linear")


def load(path):
    """{(layer shape, source): {gpu: row}} of the conv2d and linear rows, and the header."""
    by_key = collections.defaultdict(dict)
    with gzip.open(path, "rt", newline="") as f:
        reader = csv.DictReader(f)
        header = reader.fieldnames
        for row in reader:
            if row["op"] not in OPS:
                continue
            key = (tuple(row[c] for c in LAYER_COLUMNS), row["source"])
            if row["gpu"] in by_key[key]:
                sys.exit(f"{path}: {key} measured twice on {row['gpu']}; expected once")
            by_key[key][row["gpu"]] = row
    return by_key, header


def predict(cnnperf, flag, rows_csv, gpu, model):
    """The CSV rows `cnnperf predict FLAG rows_csv --gpu gpu` writes, in input order."""
    cmd = [cnnperf, "predict", flag, rows_csv, "--gpu", gpu, "--format", "csv", "--no-tf32"]
    cmd += ["--model", model] if model else ["--analytical"]
    proc = subprocess.run(cmd, capture_output=True, text=True, check=False)
    if proc.returncode != 0:
        sys.exit(f"{' '.join(cmd)}: exit {proc.returncode}\n{proc.stderr}")
    return list(csv.DictReader(proc.stdout.splitlines()))


def ape(predicted, measured):
    return abs(predicted - measured) / measured * 100.0


def score(cnnperf, by_key, header, model, tmp):
    """{(A, B): [(ape alone, ape from, op, A/B measured, A/B model), ...]} over the shapes A
    and B share."""
    gpus = sorted({g for per_gpu in by_key.values() for g in per_gpu})
    errors = collections.defaultdict(list)
    for a in gpus:
        keys = [k for k, per_gpu in by_key.items() if a in per_gpu and len(per_gpu) > 1]
        rows_csv = os.path.join(tmp, "rows.csv")
        with open(rows_csv, "w", newline="") as f:
            writer = csv.DictWriter(f, fieldnames=header)
            writer.writeheader()
            for k in keys:
                writer.writerow(by_key[k][a])
        for b in gpus:
            if b == a or not any(b in by_key[k] for k in keys):
                continue
            alone = predict(cnnperf, "--layers", rows_csv, b, model)
            carried = predict(cnnperf, "--from", rows_csv, b, model)
            if len(alone) != len(keys) or len(carried) != len(keys):
                sys.exit(f"{a} -> {b}: expected {len(keys)} rows of each prediction")
            for k, p_alone, p_from in zip(keys, alone, carried):
                if b not in by_key[k]:
                    continue
                measured = float(by_key[k][b]["latency_ms"])
                ratio_model = float(p_from["measured_ms_on_source_gpu"]) / float(p_from["kernel_ms"])
                ratio_measured = float(by_key[k][a]["latency_ms"]) / measured
                errors[(a, b)].append((ape(float(p_alone["predicted_latency_ms"]), measured),
                                       ape(float(p_from["kernel_ms"]), measured), k[0][0],
                                       ratio_measured, ratio_model))
    return errors


def mape(pairs, i):
    return sum(p[i] for p in pairs) / len(pairs)


def median(pairs, i):
    return statistics.median(p[i] for p in pairs)


def summary_rows(errors, groups):
    """{label: [errors]}: per target GPU B (every A), per op, and all."""
    out = {}
    for label, keep in groups:
        out[label] = [e for (a, b), es in errors.items() for e in es if keep(a, b, e[2])]
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--cnnperf", default="build/cnnperf")
    ap.add_argument("--data", default="datasets/layers_neusight.csv.gz")
    ap.add_argument("--model", default="",
                    help="also score this learned model file (the bundled one saw these rows)")
    args = ap.parse_args()
    by_key, header = load(args.data)
    models = [("analytical", "")] + ([("learned, in sample", args.model)] if args.model else [])
    results = {}
    with tempfile.TemporaryDirectory() as tmp:
        for name, model in models:
            results[name] = score(args.cnnperf, by_key, header, model, tmp)
    first = results[models[0][0]]
    targets = sorted({b for _, b in first})
    groups = [(f"B = {b}", lambda a, bb, op, b=b: bb == b) for b in targets]
    groups += [(f"all {op}", lambda a, b, o, op=op: o == op) for op in OPS]
    groups += [("all", lambda a, b, o: True)]
    print("MAPE % (median APE %) of B's measurement, over every ordered pair (A, B)")
    print()
    cols = " | ".join(f"{n}: B alone | {n}: --from A" for n, _ in models)
    for title, rows_of in (("rows", lambda name: summary_rows(results[name], groups)),
                           ("A -> B", lambda name: {f"{a} -> {b}": es
                                                    for (a, b), es in sorted(results[name].items())})):
        tables = {name: rows_of(name) for name, _ in models}
        print(f"| {title} | rows (A, shape) | {cols} |")
        print("|---|---:|" + "---:|---:|" * len(models))
        for label, es in tables[models[0][0]].items():
            cells = []
            for name, _ in models:
                e = tables[name][label]
                cells += [f"{mape(e, i):.1f} ({median(e, i):.1f})" for i in (0, 1)]
            print(f"| {label} | {len(es)} | " + " | ".join(cells) + " |")
        print()
    print(f"| A -> B, op | rows | A / B measured, median (p10-p90) | A / B {models[0][0]}, median "
          "(p10-p90) |")
    print("|---|---:|---:|---:|")
    for (a, b), es in sorted(first.items()):
        for op in OPS:
            e = [x for x in es if x[2] == op]
            if not e:
                continue
            cells = []
            for i in (3, 4):
                q = statistics.quantiles([x[i] for x in e], n=10)
                cells.append(f"{median(e, i):.2f} ({q[0]:.2f}-{q[8]:.2f})")
            print(f"| {a} -> {b}, {op} | {len(e)} | " + " | ".join(cells) + " |")

if __name__ == "__main__":
    main()
