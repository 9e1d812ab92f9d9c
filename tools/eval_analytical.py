#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Accuracy of the analytical baseline against the bundled real measurements.

Per layer: every row of datasets/layers_neusight.csv.gz and datasets/layers_mlpredict.csv.gz
is predicted with `cnnperf predict --analytical --layers FILE --gpu G --format csv` (one call
per GPU, since --gpu names one GPU). cnnperf reads pad_h_end/pad_w_end, so rows with
TensorFlow's asymmetric SAME padding (symmetric_pad_exact == 0) are predicted with their real
geometry. Rows without a positive latency are skipped.

End to end: every single-GPU row of datasets/e2e_torchvision.csv is predicted with
`cnnperf predict --analytical --net NET --gpu GPU --batch B --precision P --mode M
--format json` and total.latency_ms is compared with the measured latency_ms.

Prints markdown tables (docs/accuracy.md quotes them). Python 3 standard library only.

Usage: python3 tools/eval_analytical.py --cnnperf build/cnnperf [--datasets DIR] [--jobs N]
"""
import argparse
import concurrent.futures
import csv
import gzip
import json
import os
import statistics
import subprocess
import sys
import tempfile
from collections import defaultdict

LAYER_FILES = ["layers_neusight.csv.gz", "layers_mlpredict.csv.gz"]
E2E_FILE = "e2e_torchvision.csv"
# Small networks whose eager inference step is bound by the host issuing ops, not the GPU:
# measured latency / ops is the machine's host time per op.
HOST_BOUND_NETS = {"mnasnet0_5", "mnasnet1_0", "shufflenet_v2_x0_5", "shufflenet_v2_x1_0",
                   "squeezenet1_1", "mobilenet_v2"}


def ape(pred, meas):
    return abs(pred - meas) / meas * 100.0


def summarize(errors):
    """errors: list of (ape_percent). Returns n, MAPE, median APE, share within 10 %."""
    n = len(errors)
    return (n, sum(errors) / n, statistics.median(errors),
            100.0 * sum(1 for e in errors if e <= 10.0) / n)


def run(cmd):
    proc = subprocess.run(cmd, capture_output=True, text=True)
    if proc.returncode != 0:
        raise RuntimeError("command failed (%d): %s\n%s" % (proc.returncode, " ".join(cmd),
                                                            proc.stderr.strip()))
    return proc.stdout


def predict_layers(cnnperf, path, tmpdir, jobs):
    """Predicts every row of one per-layer dataset; returns list of dict rows with
    'predicted_latency_ms' added (only rows that were predicted)."""
    with gzip.open(path, "rt", newline="") as f:
        reader = csv.DictReader(f)
        fields = reader.fieldnames
        by_gpu = defaultdict(list)
        for row in reader:
            by_gpu[row["gpu"]].append(row)
    stem = os.path.basename(path).split(".")[0]
    tasks = []
    for i, (gpu, rows) in enumerate(sorted(by_gpu.items())):
        part = os.path.join(tmpdir, "%s_%d.csv" % (stem, i))
        with open(part, "w", newline="") as f:
            w = csv.DictWriter(f, fieldnames=fields)
            w.writeheader()
            w.writerows(rows)
        tasks.append((gpu, part))

    def one(task):
        gpu, part = task
        out = run([cnnperf, "predict", "--analytical", "--layers", part, "--gpu", gpu,
                   "--format", "csv"])
        return list(csv.DictReader(out.splitlines()))

    result = []
    with concurrent.futures.ThreadPoolExecutor(max_workers=jobs) as pool:
        for (gpu, _), rows in zip(tasks, pool.map(one, tasks)):
            if len(rows) != len(by_gpu[gpu]):
                raise RuntimeError("%s on %s: %d rows in, %d out" %
                                   (stem, gpu, len(by_gpu[gpu]), len(rows)))
            result.extend(rows)
    return result


# Measured-latency ranges: small layers sit near the timing floor of each method.
BUCKETS = [(0.02, "< 0.02 ms"), (0.1, "0.02-0.1 ms"), (0.3, "0.1-0.3 ms"), (1.0, "0.3-1 ms"),
           (10.0, "1-10 ms"), (float("inf"), ">= 10 ms")]


def bucket_of(ms):
    for i, (upper, _) in enumerate(BUCKETS):
        if ms < upper:
            return i
    return len(BUCKETS) - 1


def kernel_family(sequence):
    """cuDNN algorithm family of a measured conv, from its kernel names (NeuSight rows)."""
    s = sequence.lower()
    if not s:
        return ""
    if "winograd" in s:
        return "winograd" + (" (non-fused)" if "nonfused" in s else "")
    if "fft" in s:
        return "fft"
    if "implicit_convolve" in s or "scudnn" in s or "implicit_gemm" in s:
        return "implicit gemm"
    if "explicit_convolve" in s or "im2col" in s:
        return "explicit gemm (im2col)"
    if "gemm" in s:
        return "gemm"
    return "other"


def layer_tables(rows_by_source):
    lines = []
    lines.append("| source | GPU | op | rows | MAPE % | median APE % | within ±10 % |")
    lines.append("|---|---|---|---:|---:|---:|---:|")
    pass_lines = []
    pass_lines.append("| source | op | pass | rows | MAPE % | median APE % | within ±10 % |")
    pass_lines.append("|---|---|---|---:|---:|---:|---:|")
    bucket_lines = ["| source | measured latency | rows | MAPE % | median signed error % | "
                    "within ±10 % |", "|---|---|---:|---:|---:|---:|"]
    family_lines = ["| source | measured cuDNN algorithm | rows | MAPE % | median signed error % "
                    "| within ±10 % |", "|---|---|---:|---:|---:|---:|"]
    totals = []
    skipped_total = {}
    for source, rows in rows_by_source:
        groups = defaultdict(list)
        by_pass = defaultdict(list)
        everything = []
        buckets = defaultdict(list)
        families = defaultdict(list)
        skipped = 0
        for r in rows:
            meas = float(r["latency_ms"])
            if meas <= 0:
                skipped += 1
                continue
            e = ape(float(r["predicted_latency_ms"]), meas)
            groups[(r["gpu"], r["op"])].append(e)
            by_pass[(r["op"], r["pass"])].append(e)
            everything.append(e)
            signed = (float(r["predicted_latency_ms"]) - meas) / meas * 100.0
            buckets[bucket_of(meas)].append((e, signed))
            fam = kernel_family(r.get("kernel_sequence") or "") if r["op"] == "conv2d" else ""
            if fam:
                families[fam].append((e, signed))
        skipped_total[source] = skipped
        for (gpu, op), errs in sorted(groups.items()):
            n, mape, med, within = summarize(errs)
            lines.append("| %s | %s | %s | %d | %.1f | %.1f | %.1f |" %
                         (source, gpu, op, n, mape, med, within))
        for (op, pas), errs in sorted(by_pass.items()):
            n, mape, med, within = summarize(errs)
            pass_lines.append("| %s | %s | %s | %d | %.1f | %.1f | %.1f |" %
                              (source, op, pas, n, mape, med, within))
        totals.append((source, summarize(everything)))
        for fam, vals in sorted(families.items()):
            n, mape, _, within = summarize([e for e, _ in vals])
            family_lines.append("| %s | %s | %d | %.1f | %+.1f | %.1f |" %
                                (source, fam, n, mape, statistics.median([s for _, s in vals]),
                                 within))
        for b, (_, label) in enumerate(BUCKETS):
            if not buckets[b]:
                continue
            n, mape, _, within = summarize([e for e, _ in buckets[b]])
            bucket_lines.append("| %s | %s | %d | %.1f | %+.1f | %.1f |" %
                                (source, label, n, mape,
                                 statistics.median([s for _, s in buckets[b]]), within))
    tot_lines = ["| source | rows | MAPE % | median APE % | within ±10 % | skipped rows |",
                 "|---|---:|---:|---:|---:|---:|"]
    for source, (n, mape, med, within) in totals:
        tot_lines.append("| %s | %d | %.1f | %.1f | %.1f | %d |" %
                         (source, n, mape, med, within, skipped_total[source]))
    return tot_lines, lines, pass_lines, bucket_lines, family_lines


def e2e_table(cnnperf, path, jobs):
    with open(path, newline="") as f:
        rows = [r for r in csv.DictReader(f) if r["num_gpus"] == "1"]
    keys = sorted({(r["network"], r["gpu"], r["batch"], r["dtype"], r["mode"]) for r in rows})

    def one(key):
        net, gpu, batch, dtype, mode = key
        out = run([cnnperf, "predict", "--analytical", "--net", net, "--gpu", gpu, "--batch",
                   batch, "--precision", dtype, "--mode", mode, "--format", "json"])
        doc = json.loads(out)
        ops = sum(1 for layer in doc["layers"] if layer["kernels"] > 0)
        return float(doc["total"]["latency_ms"]), ops

    # Identical invocations are run once (several source files repeat a configuration).
    cache = {}
    failures = {}
    with concurrent.futures.ThreadPoolExecutor(max_workers=jobs) as pool:
        futures = {pool.submit(one, k): k for k in keys}
        for fut in concurrent.futures.as_completed(futures):
            k = futures[fut]
            try:
                cache[k] = fut.result()
            except RuntimeError as exc:
                failures[k] = str(exc).splitlines()[-1]
    groups = defaultdict(list)
    signed = defaultdict(list)
    host_us = defaultdict(list)
    for r in rows:
        k = (r["network"], r["gpu"], r["batch"], r["dtype"], r["mode"])
        if k not in cache:
            continue
        meas = float(r["latency_ms"])
        pred, ops = cache[k]
        if r["network"] in HOST_BOUND_NETS and r["mode"] == "inference":
            host_us[(r["gpu"], r["library_versions"])].append(meas * 1e3 / ops)
        groups[(r["gpu"], r["mode"], r["dtype"])].append(ape(pred, meas))
        signed[(r["gpu"], r["mode"], r["dtype"])].append((pred - meas) / meas * 100.0)
    lines = ["| GPU | mode | dtype | rows | MAPE % | median APE % | within ±10 % | "
             "median signed error % |",
             "|---|---|---|---:|---:|---:|---:|---:|"]
    all_errs = []
    for (gpu, mode, dtype), errs in sorted(groups.items()):
        n, mape, med, within = summarize(errs)
        all_errs.extend(errs)
        lines.append("| %s | %s | %s | %d | %.1f | %.1f | %.1f | %+.1f |" %
                     (gpu, mode, dtype, n, mape, med, within,
                      statistics.median(signed[(gpu, mode, dtype)])))
    if all_errs:
        n, mape, med, within = summarize(all_errs)
        lines.append("| **all** | | | %d | %.1f | %.1f | %.1f | |" % (n, mape, med, within))
    host = ["| GPU (machine) | library versions | rows | median µs per op | min | max |",
            "|---|---|---:|---:|---:|---:|"]
    for (gpu, libs), v in sorted(host_us.items()):
        host.append("| %s | %s | %d | %.1f | %.1f | %.1f |" %
                    (gpu, libs, len(v), statistics.median(v), min(v), max(v)))
    return lines, host, len(keys), failures


def main():
    here = os.path.dirname(os.path.abspath(__file__))
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--cnnperf", required=True, help="path of the cnnperf executable")
    ap.add_argument("--datasets", default=os.path.join(here, "..", "datasets"))
    ap.add_argument("--jobs", type=int, default=2, help="parallel cnnperf calls (default 2)")
    ap.add_argument("--skip-e2e", action="store_true")
    args = ap.parse_args()
    cnnperf = os.path.abspath(args.cnnperf)
    if not os.access(cnnperf, os.X_OK):
        sys.exit("eval_analytical.py: --cnnperf %s: not an executable" % args.cnnperf)

    with tempfile.TemporaryDirectory(prefix="cnnperf_eval_") as tmp:
        rows_by_source = []
        for name in LAYER_FILES:
            rows = predict_layers(cnnperf, os.path.join(args.datasets, name), tmp, args.jobs)
            rows_by_source.append((name.split("_")[1].split(".")[0], rows))
    tot, per_gpu, per_pass, per_bucket, per_family = layer_tables(rows_by_source)

    print("### Per-layer accuracy, overall\n")
    print("\n".join(tot))
    print("\n### Per-layer accuracy by measured latency\n")
    print("\n".join(per_bucket))
    print("\n### conv2d accuracy by the algorithm cuDNN ran (NeuSight records kernel names)\n")
    print("\n".join(per_family))
    print("\n### Per-layer accuracy by source, GPU and op\n")
    print("\n".join(per_gpu))
    print("\n### Per-layer accuracy by source, op and pass\n")
    print("\n".join(per_pass))
    if not args.skip_e2e:
        lines, host, n_calls, failures = e2e_table(
            cnnperf, os.path.join(args.datasets, E2E_FILE), args.jobs)
        print("\n### End to end (datasets/e2e_torchvision.csv, num_gpus == 1)\n")
        print("%d distinct cnnperf invocations.\n" % n_calls)
        print("\n".join(lines))
        print("\n### Host time per op of the measuring machines (host-bound small networks)\n")
        print("\n".join(host))
        if failures:
            print("\n%d configurations could not be predicted:\n" % len(failures))
            for k, msg in sorted(failures.items()):
                print("- %s: %s" % (" ".join(k), msg))
    return 0


if __name__ == "__main__":
    sys.exit(main())
