#!/usr/bin/python3
# SPDX-License-Identifier: Apache-2.0
"""Put cnnperf's regressors next to scikit-learn's on the SAME split and features.

Two inputs:
- `--source`: a real measured CSV (default: NeuSight conv2d latencies, /work/shared/data/
  neusight/conv2d.csv), from which simple numeric features are derived here: batch, c_in,
  c_out, h_in, w_in, kernel, flops = 2*batch*c_in*c_out*k*k*h_out*w_out, and one-hot GPU
  columns, with a seeded 80/20 split; the target is the latency.
- `--cnnperf-features`: the matrix `cnnperf train --export-features` writes, i.e. cnnperf's own
  features of one op family (`--family`), the rows of fold `--test-fold` (of the `--cv` the
  export was made with) held out; the target is latency / baseline_ms (analytical + host
  floor), whose percentage error is the latency's, as `train` fits it (without its roofline
  clamp).
Either way the feature CSV is written once and read by both sides, so the two libraries see
identical numbers.

Run with Debian's python (/usr/bin/python3, which has python3-sklearn), e.g. through
bench/sklearn_compare.sh.
"""
import argparse
import csv
import json
import os
import subprocess
import sys
import time

import numpy as np
import sklearn
from sklearn.compose import TransformedTargetRegressor
from sklearn.ensemble import RandomForestRegressor
from sklearn.linear_model import LinearRegression
from sklearn.neighbors import KNeighborsRegressor
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler
from sklearn.tree import DecisionTreeRegressor


def derive_features(source, out_path, seed):
    """Writes the feature CSV (features..., latency_ms, split) and returns (X, y, split)."""
    with open(source, newline="") as f:
        rows = list(csv.DictReader(f))
    gpus = sorted({r["gpu"] for r in rows})
    names = ["batch", "c_in", "c_out", "h_in", "w_in", "kernel", "flops"]
    names += ["gpu_" + g.replace(" ", "_") for g in gpus]
    x = []
    y = []
    for r in rows:
        b, ci, co = float(r["batch"]), float(r["c_in"]), float(r["c_out"])
        h, w, k = float(r["h_in"]), float(r["w_in"]), float(r["kernel"])
        s, p, d = float(r["stride"]), float(r["padding"]), float(r["dilation"])
        h_out = (h + 2 * p - d * (k - 1) - 1) // s + 1
        w_out = (w + 2 * p - d * (k - 1) - 1) // s + 1
        g = float(r["groups"])
        flops = 2.0 * b * (ci / g) * co * k * k * h_out * w_out
        x.append([b, ci, co, h, w, k, flops] + [1.0 if r["gpu"] == gg else 0.0 for gg in gpus])
        y.append(float(r["latency_ms"]))
    x = np.array(x)
    y = np.array(y)
    rng = np.random.RandomState(seed)
    is_test = rng.permutation(len(y)) < int(round(0.2 * len(y)))
    split = np.where(is_test, "test", "train")
    write_features(out_path, names, "latency_ms", x, y, split)
    return x, y, split


def write_features(out_path, names, target, x, y, split):
    """The CSV both sides read: features..., target, split."""
    with open(out_path, "w", newline="") as f:
        wr = csv.writer(f)
        wr.writerow(names + [target, "split"])
        for i in range(len(y)):
            # repr() of a float round-trips exactly, so C++ reads the same doubles.
            wr.writerow([repr(v) for v in x[i]] + [repr(y[i]), split[i]])


def exported_features(path, family, test_fold, out_path):
    """Reads a `train --export-features` CSV; writes the feature CSV (features..., ratio, split)
    of one family's rows and returns (X, ratio, split)."""
    with open(path, newline="") as f:
        reader = csv.reader(f)
        header = next(reader)
        rows = [r for r in reader if r[0] == family]
    if not rows:
        sys.exit(f"sklearn_compare: {path}: no rows of family '{family}'")
    first, last = header.index("fold") + 1, header.index("baseline_ms")
    names = header[first:last]
    x = np.array([[float(v) for v in r[first:last]] for r in rows])
    baseline = np.array([float(r[last]) for r in rows])
    latency = np.array([float(r[header.index("latency_ms")]) for r in rows])
    y = latency / baseline
    split = np.where(np.array([int(r[header.index("fold")]) for r in rows]) == test_fold,
                     "test", "train")
    write_features(out_path, names, "ratio", x, y, split)
    return x, y, split


def metrics(y, p):
    ape = np.abs(p - y) / np.abs(y)
    return 100.0 * ape.mean(), 1.0 - ((y - p) ** 2).sum() / ((y - y.mean()) ** 2).sum(), \
        100.0 * (ape <= 0.10 * (1 + 1e-12)).mean()


def sklearn_models(threads, seed):
    # The same hyper-parameters as cnnperf's defaults (see include/cnnperf/ml/regressor.hpp).
    return {
        "linear": lambda: make_pipeline(StandardScaler(), LinearRegression()),
        "knn": lambda: make_pipeline(StandardScaler(), KNeighborsRegressor(n_neighbors=5)),
        "dtree": lambda: DecisionTreeRegressor(random_state=seed),
        "rf": lambda: RandomForestRegressor(n_estimators=100, max_features=1.0 / 3.0,
                                            n_jobs=threads, random_state=seed),
    }


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--source", default="/work/shared/data/neusight/conv2d.csv")
    ap.add_argument("--ml-compare", required=True, help="path of the built ml_compare exe")
    ap.add_argument("--workdir", default="build/sklearn-compare")
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--cnnperf-features", help="a `cnnperf train --export-features` CSV")
    ap.add_argument("--family", default="conv", help="op family of --cnnperf-features")
    ap.add_argument("--test-fold", type=int, default=0, help="fold of --cnnperf-features held out")
    args = ap.parse_args()

    os.makedirs(args.workdir, exist_ok=True)
    features_csv = os.path.join(args.workdir, "features.csv")
    if args.cnnperf_features:
        x, y, split = exported_features(args.cnnperf_features, args.family, args.test_fold,
                                        features_csv)
        target, source = "ratio", f"{args.cnnperf_features} ({args.family})"
    else:
        x, y, split = derive_features(args.source, features_csv, args.seed)
        target, source = "latency_ms", args.source
    tr, te = split == "train", split == "test"
    print(f"# data: {source} -> {features_csv}: {len(y)} rows, {x.shape[1]} features, "
          f"{tr.sum()} train / {te.sum()} test; scikit-learn {sklearn.__version__}", file=sys.stderr)

    results = []  # (library, regressor, log_target, mape, r2, within10, wall_s, cpu_s)
    for log_target in (False, True):
        cmd = [args.ml_compare, "--data", features_csv, "--target", target, "--split", "split",
               "--regressors", "linear,knn,dtree,rf,xgboost", "--n-threads", str(args.threads)]
        if log_target:
            cmd.append("--log-target")
        out = subprocess.run(cmd, check=True, capture_output=True, text=True).stdout
        for row in csv.DictReader(out.splitlines()):
            results.append(("cnnperf", row["regressor"], log_target, float(row["mape_pct"]),
                            float(row["r2"]), float(row["within_10pct"]),
                            float(row["train_wall_s"]), float(row["train_cpu_s"])))
        for name, make in sklearn_models(args.threads, args.seed).items():
            model = make()
            if log_target:
                model = TransformedTargetRegressor(regressor=model, func=np.log, inverse_func=np.exp)
            c0, w0 = time.process_time(), time.perf_counter()
            model.fit(x[tr], y[tr])
            wall, cpu = time.perf_counter() - w0, time.process_time() - c0
            mape, r2, within = metrics(y[te], model.predict(x[te]))
            results.append(("sklearn", name, log_target, mape, r2, within, wall, cpu))

    print("| regressor | target | library | MAPE % | R² | within ±10 % | train wall s | train CPU s |")
    print("|---|---|---|---:|---:|---:|---:|---:|")
    order = ["linear", "knn", "dtree", "rf", "xgboost"]
    results.sort(key=lambda r: (r[2], order.index(r[1]), r[0]))
    for lib, name, log_t, mape, r2, within, wall, cpu in results:
        print(f"| {name} | {'log' if log_t else 'raw'} | {lib} | {mape:.2f} | {r2:.4f} | "
              f"{within:.1f} | {wall:.3f} | {cpu:.3f} |")
    print(json.dumps({"rows": int(len(y)), "features": int(x.shape[1]), "target": target,
                      "seed": args.seed, "sklearn": sklearn.__version__}), file=sys.stderr)


if __name__ == "__main__":
    main()
