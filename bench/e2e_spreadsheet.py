#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""End to end, leave-one-GPU-out: cnnperf's network prediction beside a two-number spreadsheet.

--runtime pytorch (eager): for every measured end-to-end configuration (network, GPU,
precision, mode, GPU count) of the bundled pytorch-gpu-benchmark rows
(datasets/e2e_torchvision.csv) and the timm rows of one runtime in NCHW on zoo-matched networks
(datasets/e2e_timm.csv.gz), both predictors see only the other GPUs' rows:

- cnnperf: `cnnperf predict --net N --gpu G --batch B --precision P --mode M --runtime R
  --format json`. Under the eager runtime (pytorch), the eager overhead and the kernel model's
  fp16 tensor-core efficiencies are refitted per fold by `cnnperf train e2e` on the other GPUs'
  rows of both files (`predict --eager-overhead`): the bundled ones were fitted on all of them.
- spreadsheet: per source, network, precision, mode and GPU count, log(latency per image) =
  a + b log(peak FLOP/s at the precision) + c log(memory bandwidth), least squares over the
  other GPUs of the group (one point per GPU), keeping a degree of freedom: four or more other
  GPUs: all three terms; three: a + b log(FLOP/s); one or two: the mean of their times scaled
  by the FLOP/s ratio (b = -1); none: no prediction (counted, not scored).

Measured: each GPU's largest batch in the group, the geometric mean of its rows there (repeated
runs, PyTorch versions). Scored: MAPE and Spearman rank correlation across GPUs (mean over the
groups with 3+ GPUs), per source, precision and mode, and cnnperf's signed mean error per
architecture and precision.

--runtime tensorrt (MLPerf Inference ResNet-50, datasets/e2e_mlperf_inference.csv.gz) and
--runtime pytorch-compile (timm's compiled steps, datasets/e2e_timm.csv.gz): the rows that
`cnnperf train e2e --runtime R` fits, each predicted by that command's own leave-one-GPU-out
(the runtime's terms refitted without the GPU: its report's `held_out` rows), and the
spreadsheet fitted on the same folds, per network and scenario (MLPerf) or network and batch
(timm), with the peak at the row's precision (INT8 tensor TOPS for an int8 engine). Scored in
the unit `train e2e` scores: an MLPerf Offline row's throughput, every other row's latency.
Python standard library only.
"""
import argparse
import concurrent.futures
import csv
import gzip
import json
import math
import os
import subprocess
import sys
import tempfile
from collections import defaultdict

TORCHVISION = "pytorch-gpu-benchmark"
TIMM = "timm"


def open_text(path):
    return gzip.open(path, "rt", newline="") if path.endswith(".gz") else open(path, newline="")


def read_rows(path):
    with open_text(path) as f:
        return list(csv.DictReader(f))


def configs_of(rows, source):
    """Eager rows: {(source, network, precision, mode, num_gpus): {gpu: (batch, measured ms per
    image)}}."""
    points = defaultdict(lambda: defaultdict(list))  # key -> gpu -> [(batch, ms)]
    for r in rows:
        if source == TIMM:
            if r["runtime"] != "pytorch" or r["memory_format"] != "nchw" or not r["zoo_network"]:
                continue
            network, precision = r["zoo_network"], r["precision"]
        else:
            network, precision = r["network"], r["dtype"]
        latency = float(r["latency_ms"])
        if latency <= 0:
            continue
        key = (source, network, precision, r["mode"], int(r.get("num_gpus") or 1))
        points[key][r["gpu"]].append((int(r["batch"]), latency))
    out = {}
    for key, per_gpu in points.items():
        out[key] = {}
        for gpu, pts in per_gpu.items():
            batch = max(b for b, _ in pts)  # each GPU's largest batch
            ms = [m for b, m in pts if b == batch]
            out[key][gpu] = (batch, math.exp(sum(math.log(m / batch) for m in ms) / len(ms)))
    return out


def cnnperf_precision(precision):
    # cnnperf has one half precision: AMP (autocast) and model.half() both run fp16 kernels.
    return "fp16" if precision in ("amp", "fp16") else precision


def predict(cnnperf, runtime, network, gpu, batch, precision, mode, num_gpus, overhead,
            input_on_gpu):
    cmd = [cnnperf, "predict", "--net", network, "--gpu", gpu, "--batch", str(batch),
           "--precision", cnnperf_precision(precision), "--mode", mode, "--runtime", runtime,
           "--format", "json"]
    if input_on_gpu:
        cmd.append("--input-on-gpu")  # the harness made its input on the GPU: no copy timed
    if num_gpus > 1:
        cmd += ["--num-gpus", str(num_gpus)]
    if overhead:
        cmd += ["--eager-overhead", overhead]
    done = subprocess.run(cmd, capture_output=True, text=True, check=False)
    if done.returncode != 0:
        return None, done.stderr.strip().splitlines()[-1:] or ["exit %d" % done.returncode]
    doc = json.loads(done.stdout)
    g = doc["gpu"]
    return {"latency_ms": doc["total"]["latency_ms"], "architecture": g["architecture"],
            "fp32_tflops": g["fp32_tflops"], "fp16_tflops": g.get("fp16_tflops", 0),
            "tensor_fp16_tflops": g.get("tensor_fp16_tflops", 0),
            "bandwidth_gbs": g["memory_bandwidth_gbs"]}, None


def peak_tflops(spec, precision):
    """The FLOP/s a datasheet gives for the precision: fp32 on CUDA cores; int8 on its INT8
    tensor rate; half on tensor cores where the GPU has them, else the faster of its fp16 and
    fp32 rates (a GPU with 1/64-rate fp16 runs half tensors with fp32 math)."""
    if precision == "fp32":
        return spec["fp32_tflops"]
    if precision == "int8" and spec.get("tensor_int8_tops", 0) > 0:
        return spec["tensor_int8_tops"]
    if spec["tensor_fp16_tflops"] > 0:
        return spec["tensor_fp16_tflops"]
    return max(spec["fp16_tflops"], spec["fp32_tflops"])


def solve(a, y):
    """Least squares by normal equations (a: rows of features), Gaussian elimination."""
    n = len(a[0])
    m = [[sum(r[i] * r[j] for r in a) for j in range(n)] + [sum(r[i] * v for r, v in zip(a, y))]
         for i in range(n)]
    for c in range(n):
        p = max(range(c, n), key=lambda k: abs(m[k][c]))
        if abs(m[p][c]) < 1e-12:
            return None
        m[c], m[p] = m[p], m[c]
        for k in range(n):
            if k != c:
                f = m[k][c] / m[c][c]
                m[k] = [x - f * z for x, z in zip(m[k], m[c])]
    return [m[i][n] / m[i][i] for i in range(n)]


def spreadsheet(train, target):
    """train: [(log flops, log bw, log ms/img)]; target: (log flops, log bw). Returns
    (log ms/img, terms used) or (None, 0)."""
    if not train:
        return None, 0
    # Each fit keeps a degree of freedom: three terms from four GPUs, two from three.
    if len(train) >= 4:
        coef = solve([[1, f, b] for f, b, _ in train], [y for *_, y in train])
        if coef is not None:
            return coef[0] + coef[1] * target[0] + coef[2] * target[1], 3
    if len(train) >= 3:
        coef = solve([[1, f] for f, _, _ in train], [y for *_, y in train])
        if coef is not None:
            return coef[0] + coef[1] * target[0], 2
    # One GPU (or collinear specs): its time scaled by the FLOP/s ratio.
    y = sum(v - (-1) * f for f, _, v in train) / len(train)
    return y - target[0], 1


def ranks(values):
    order = sorted(range(len(values)), key=lambda i: values[i])
    r = [0.0] * len(values)
    i = 0
    while i < len(order):
        j = i
        while j + 1 < len(order) and values[order[j + 1]] == values[order[i]]:
            j += 1
        for k in range(i, j + 1):
            r[order[k]] = (i + j) / 2.0
        i = j + 1
    return r


def spearman(x, y):
    rx, ry = ranks(x), ranks(y)
    mx, my = sum(rx) / len(rx), sum(ry) / len(ry)
    sxy = sum((a - mx) * (b - my) for a, b in zip(rx, ry))
    sx = math.sqrt(sum((a - mx) ** 2 for a in rx))
    sy = math.sqrt(sum((b - my) ** 2 for b in ry))
    return sxy / (sx * sy) if sx > 0 and sy > 0 else float("nan")


def fold_overheads(cnnperf, files, gpus, workdir, reuse, jobs):
    """{gpu: eager-overhead file (with its kernel model) fitted by `cnnperf train e2e` on the
    other GPUs' rows of `files`}."""
    tables = []
    for path in files:
        with open_text(path) as f:
            reader = csv.reader(f)
            header = next(reader)
            tables.append((os.path.basename(path).replace(".gz", ""), header, list(reader)))

    def fit(gpu):
        slug = "".join(c if c.isalnum() else "_" for c in gpu)
        out = os.path.join(workdir, "overhead_without_%s.json" % slug)
        if reuse and os.path.exists(out):
            return gpu, out
        data = []
        for name, header, body in tables:
            path = os.path.join(workdir, "without_%s_%s" % (slug, name))
            gpu_col = header.index("gpu")
            with open(path, "w", newline="") as f:
                w = csv.writer(f)
                w.writerow(header)
                w.writerows(r for r in body if r[gpu_col] != gpu)
            data.append(path)
        print("fold without %s: cnnperf train e2e" % gpu, file=sys.stderr)
        subprocess.run([cnnperf, "train", "e2e", "--no-cv", "--data"] + data + ["--out", out],
                       check=True, stdout=subprocess.DEVNULL)
        return gpu, out

    with concurrent.futures.ThreadPoolExecutor(max_workers=jobs) as pool:
        return dict(pool.map(fit, sorted(gpus)))


def summarize(items, label):
    """items: [(group key, measured, cnnperf, sheet, architecture)] of one slice."""
    def mape(pairs):
        pairs = [(m, p) for m, p in pairs if p is not None]
        return (100 * sum(abs(p - m) / m for m, p in pairs) / len(pairs), len(pairs)) if pairs \
            else (float("nan"), 0)

    c_mape, n = mape([(m, c) for _, m, c, _, _ in items])
    s_mape, ns = mape([(m, s) for _, m, _, s, _ in items])
    both = [(m, c, s) for _, m, c, s, _ in items if c is not None and s is not None]
    cb_mape, nb = mape([(m, c) for m, c, _ in both])
    sb_mape, _ = mape([(m, s) for m, _, s in both])
    by_group = defaultdict(list)
    for key, m, c, s, _ in items:
        if c is not None and s is not None:
            by_group[key].append((m, c, s))
    rho_c, rho_s = [], []
    for pts in by_group.values():
        if len(pts) >= 3:
            rho_c.append(spearman([p[0] for p in pts], [p[1] for p in pts]))
            rho_s.append(spearman([p[0] for p in pts], [p[2] for p in pts]))
    mean = (lambda v: sum(v) / len(v) if v else float("nan"))
    return {"slice": label, "configs": len(items), "cnnperf_n": n, "cnnperf_mape_pct": c_mape,
            "sheet_n": ns, "sheet_mape_pct": s_mape, "both_n": nb, "cnnperf_mape_both_pct": cb_mape,
            "sheet_mape_both_pct": sb_mape, "rank_groups": len(rho_c),
            "cnnperf_spearman": mean(rho_c), "sheet_spearman": mean(rho_s)}


def gpu_spec(cnnperf, gpu):
    done = subprocess.run([cnnperf, "gpus", "show", gpu, "--format", "json"],
                          capture_output=True, text=True, check=True)
    return json.loads(done.stdout)["gpu"]


def runtime_comparison(args):
    """cnnperf's leave-one-GPU-out of `train e2e --runtime R` beside the spreadsheet on its
    folds: {runtime, slices, rows}."""
    data = args.data or os.path.join(os.path.dirname(args.torchvision),
                                     "e2e_mlperf_inference.csv.gz" if args.runtime == "tensorrt"
                                     else "e2e_timm.csv.gz")
    done = subprocess.run([args.cnnperf, "train", "e2e", "--runtime", args.runtime, "--data", data,
                           "--format", "json"], capture_output=True, text=True, check=False)
    if done.returncode != 0:
        sys.exit("cnnperf train e2e --runtime %s failed: %s" % (args.runtime, done.stderr.strip()))
    held = json.loads(done.stdout)["report"]["leave-gpu-out"]["held_out"]
    specs = {g: gpu_spec(args.cnnperf, g) for g in sorted({r["gpu"] for r in held})}
    doc = compare_held_out(held, specs, args.runtime)
    doc["data"] = data
    return doc


def compare_held_out(held, specs, runtime):
    """held: train e2e's `held_out` rows (network, gpu, batch, precision, scenario, measured_ms,
    predicted_ms); specs: {gpu: database entry}. The spreadsheet on the same folds beside them:
    {runtime, sheet_terms_used, slices, rows}."""
    groups = defaultdict(list)  # (network, scenario or batch) -> rows
    for r in held:
        groups[(r["network"], r["scenario"] or "batch %d" % r["batch"])].append(r)

    def unit(r, ms):  # train e2e's unit: an Offline row's samples/s, else ms
        return 1e3 * r["batch"] / ms if r["scenario"] == "Offline" else ms

    items, fallback = [], defaultdict(int)
    for key, rows in sorted(groups.items()):
        for r in rows:
            spec = specs[r["gpu"]]
            train = [(math.log(peak_tflops(specs[o["gpu"]], o["precision"])),
                      math.log(specs[o["gpu"]]["memory_bandwidth_gbs"]),
                      math.log(o["measured_ms"] / o["batch"])) for o in rows if o is not r]
            y, terms = spreadsheet(train, (math.log(peak_tflops(spec, r["precision"])),
                                           math.log(spec["memory_bandwidth_gbs"])))
            fallback[terms] += 1
            sheet = math.exp(y) * r["batch"] if y is not None else None
            items.append((key, r, unit(r, r["measured_ms"]), unit(r, r["predicted_ms"]),
                          unit(r, sheet) if sheet else None, spec["architecture"]))
    slices = defaultdict(list)
    for key, r, m, c, sh, arch in items:
        rec = (key, m, c, sh, arch)
        slices[(runtime, "all")].append(rec)
        slices[(runtime, r["scenario"] or "batch %d" % r["batch"])].append(rec)
    table = [summarize(v, " / ".join(k)) for k, v in sorted(slices.items())]
    return {"runtime": runtime,
            "sheet_terms_used": {str(k): v for k, v in sorted(fallback.items())},
            "slices": table,
            "rows": [{"network": r["network"], "gpu": r["gpu"], "scenario": r["scenario"],
                      "batch": r["batch"], "measured": m, "cnnperf": c, "sheet": sh}
                     for _, r, m, c, sh, _ in items]}


def print_slices(doc):
    f = lambda v: "-" if v != v else "%.1f" % v  # NaN prints as '-'
    g = lambda v: "-" if v != v else "%.2f" % v
    print("Spreadsheet terms used (3: FLOP/s and bandwidth, 2: FLOP/s, 1: FLOP/s ratio to one "
          "GPU, 0: no other GPU): " + ", ".join("%s: %s" % (k, v) for k, v in
                                              sorted(doc["sheet_terms_used"].items())))
    print()
    print("| slice | configs | cnnperf MAPE % | spreadsheet MAPE % (scored) | cnnperf MAPE % on "
          "those | rank groups | cnnperf Spearman | spreadsheet Spearman |")
    print("|---|---|---|---|---|---|---|---|")
    for r in doc["slices"]:
        print("| %s | %d | %s | %s (%d) | %s | %d | %s | %s |" % (
            r["slice"], r["configs"], f(r["cnnperf_mape_pct"]), f(r["sheet_mape_pct"]),
            r["sheet_n"], f(r["cnnperf_mape_both_pct"]), r["rank_groups"],
            g(r["cnnperf_spearman"]), g(r["sheet_spearman"])))


def main():
    repo = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--cnnperf", default=os.path.join(repo, "build", "cnnperf"))
    ap.add_argument("--runtime", default="pytorch",
                    choices=["pytorch", "pytorch-compile", "tensorrt"],
                    help="pytorch: `cnnperf predict --runtime pytorch` on pytorch-gpu-benchmark "
                    "and timm's eager rows; pytorch-compile, tensorrt: the rows `cnnperf train "
                    "e2e --runtime R` fits, with its own leave-one-GPU-out")
    ap.add_argument("--data", help="--runtime pytorch-compile or tensorrt: the file train e2e "
                    "fits (default: datasets/e2e_timm.csv.gz or "
                    "datasets/e2e_mlperf_inference.csv.gz)")
    ap.add_argument("--torchvision", default=os.path.join(repo, "datasets", "e2e_torchvision.csv"))
    ap.add_argument("--timm", default=os.path.join(repo, "datasets", "e2e_timm.csv.gz"))
    ap.add_argument("--overhead", choices=["refit", "bundled"], default="refit",
                    help="refit: eager overhead fitted per fold without the held-out GPU "
                    "(pytorch-gpu-benchmark rows); bundled: the shipped one (in-sample there)")
    ap.add_argument("--workdir", help="where the folds' files go (default: a new temp dir)")
    ap.add_argument("--reuse-folds", action="store_true",
                    help="keep fold overhead files already in --workdir (same data and binary)")
    ap.add_argument("--single-gpu", action="store_true", help="only 1-GPU configurations")
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--rows-out", help="write every configuration's figures here (CSV)")
    ap.add_argument("--format", choices=["markdown", "json"], default="markdown")
    args = ap.parse_args()
    if args.runtime != "pytorch":
        doc = runtime_comparison(args)
        if args.format == "json":
            json.dump(doc, sys.stdout, indent=1)
            print()
        else:
            print_slices(doc)
        return

    configs = {}
    torchvision_rows, timm_rows = read_rows(args.torchvision), read_rows(args.timm)
    configs.update(configs_of(torchvision_rows, TORCHVISION))
    configs.update(configs_of(timm_rows, TIMM))
    # Each source's harness: a timing method naming input-on-gpu timed no input copy.
    on_gpu_sources = {src for src, rows in ((TORCHVISION, torchvision_rows), (TIMM, timm_rows))
                      if any("input-on-gpu" in r.get("timing_method", "") for r in rows)}
    if args.single_gpu:
        configs = {k: v for k, v in configs.items() if k[4] == 1}
    if not configs:
        sys.exit("no end-to-end rows of runtime %s" % args.runtime)

    workdir = args.workdir or tempfile.mkdtemp(prefix="e2e_spreadsheet_")
    os.makedirs(workdir, exist_ok=True)
    overheads = {}
    if args.overhead == "refit":
        gpus = {g for v in configs.values() for g in v}
        overheads = fold_overheads(args.cnnperf, [args.torchvision, args.timm], gpus, workdir,
                                   args.reuse_folds, args.jobs)

    jobs = []
    for key, per_gpu in configs.items():
        source, network, precision, mode, num_gpus = key
        for gpu, (batch, _) in per_gpu.items():
            overhead = overheads.get(gpu)
            jobs.append((key, gpu, (args.cnnperf, args.runtime, network, gpu, batch, precision,
                                    mode, num_gpus, overhead, source in on_gpu_sources)))
    predicted, failures = {}, defaultdict(int)
    with concurrent.futures.ThreadPoolExecutor(max_workers=args.jobs) as pool:
        futures = {pool.submit(predict, *a): (key, gpu) for key, gpu, a in jobs}
        for fut in concurrent.futures.as_completed(futures):
            result, err = fut.result()
            if result is None:
                failures[err[0]] += 1
            predicted[futures[fut]] = result
    for msg, n in failures.items():
        print("cnnperf predict failed on %d configurations: %s" % (n, msg), file=sys.stderr)

    items, fallback = [], defaultdict(int)
    for key, per_gpu in configs.items():
        precision = key[2]
        specs = {g: predicted[(key, g)] for g in per_gpu if predicted[(key, g)] is not None}
        for gpu, (batch, measured) in per_gpu.items():
            spec = predicted[(key, gpu)]
            c = spec["latency_ms"] / batch if spec else None
            train = [(math.log(peak_tflops(specs[g], precision)),
                      math.log(specs[g]["bandwidth_gbs"]), math.log(per_gpu[g][1]))
                     for g in per_gpu if g != gpu and g in specs]
            s, terms = (None, 0)
            if spec:
                s, terms = spreadsheet(train, (math.log(peak_tflops(spec, precision)),
                                               math.log(spec["bandwidth_gbs"])))
            fallback[terms] += 1
            arch = spec["architecture"] if spec else "?"
            items.append((key, gpu, measured, c, math.exp(s) if s is not None else None, arch,
                          batch, terms))

    slices = defaultdict(list)
    for key, gpu, m, c, s, arch, _, _ in items:
        source, network, precision, mode, num_gpus = key
        rec = (key, m, c, s, arch)
        gpus_label = "1 GPU" if num_gpus == 1 else "2-4 GPUs"
        slices[(args.runtime, source, precision, mode, gpus_label)].append(rec)
        slices[(args.runtime, source, "all", "all", gpus_label)].append(rec)
        slices[(args.runtime, "all", "all", "all", "all")].append(rec)
        if network == "resnet50" and mode == "training" and num_gpus == 1:
            slices[(args.runtime, "resnet50 training", "all", "all", "1 GPU")].append(rec)
    table = [summarize(v, " / ".join(k)) for k, v in sorted(slices.items())]

    bias = defaultdict(list)  # (architecture, source, precision) -> signed errors of cnnperf
    for key, gpu, m, c, s, arch, _, _ in items:
        if c is not None:
            bias[(arch, key[0], key[2], gpu)].append((c - m) / m)
    bias_rows = [{"architecture": a, "source": src, "precision": p, "gpu": g, "configs": len(v),
                  "signed_mean_error_pct": 100 * sum(v) / len(v)}
                 for (a, src, p, g), v in sorted(bias.items())]

    if args.rows_out:
        with open(args.rows_out, "w", newline="") as f:
            w = csv.writer(f)
            w.writerow(["source", "network", "precision", "mode", "num_gpus", "gpu", "architecture",
                        "batch", "measured_ms_per_image", "cnnperf_ms_per_image",
                        "sheet_ms_per_image", "sheet_terms"])
            for key, gpu, m, c, s, arch, batch, terms in items:
                w.writerow(list(key) + [gpu, arch, batch, "%.6g" % m,
                                        "" if c is None else "%.6g" % c,
                                        "" if s is None else "%.6g" % s, terms])

    doc = {"runtime": args.runtime, "overhead": args.overhead,
           "sheet_terms_used": {str(k): v for k, v in sorted(fallback.items())},
           "slices": table, "cnnperf_bias": bias_rows}
    if args.format == "json":
        json.dump(doc, sys.stdout, indent=1)
        print()
        return
    print_slices(doc)
    print()
    print("| architecture | source | precision | GPU | configs | cnnperf signed mean error % |")
    print("|---|---|---|---|---|---|")
    for r in bias_rows:
        print("| %s | %s | %s | %s | %d | %+.1f |" % (r["architecture"], r["source"],
                                                     r["precision"], r["gpu"], r["configs"],
                                                     r["signed_mean_error_pct"]))


if __name__ == "__main__":
    main()
