#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Rebuild cnnperf's datasets/ from the public measurements in shared/data.

Usage:  python3 tools/build_datasets.py [DATA_DIR] [--out DIR]

DATA_DIR defaults to ../shared/data relative to the repository root, --out to
<repo>/datasets. Only the Python 3 standard library is used. The conversion is a
mechanical column mapping: every measured number is copied as the exact string
the source CSV holds (never re-formatted, rounded, filtered by value or edited).
Output is deterministic: rerunning gives byte-identical files (gzip mtime 0, no
file name in the gzip header, fixed row and column order).

Writes (see datasets/README.md and docs/data-formats.md):
  layers_neusight.csv.gz, layers_neusight_test.csv.gz, layers_mlpredict.csv.gz,
  e2e_torchvision.csv, power_zeus.csv, e2e_help_nas.csv.gz, e2e_timm.csv.gz,
  e2e_mlperf_inference.csv.gz, MANIFEST.json
"""

import argparse
import csv
import gzip
import hashlib
import io
import json
import os
import re
import sys

SCHEMA_VERSION = 1
REPO_ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
DEFAULT_DATA_DIR = os.path.normpath(os.path.join(REPO_ROOT, "..", "shared", "data"))
DEFAULT_OUT_DIR = os.path.join(REPO_ROOT, "datasets")

# DESIGN §3, in order.
CANONICAL = ["op", "batch", "c_in", "h_in", "w_in", "c_out", "kernel_h", "kernel_w",
             "stride_h", "stride_w", "pad_h", "pad_w", "dilation_h", "dilation_w",
             "groups", "bias", "dtype", "pass"]
PROVENANCE = ["latency_ms", "gpu", "source", "framework", "library_versions",
              "timing_method"]

SOURCES = {
    "neusight": {
        "repository": "sitar-lab/NeuSight",
        "commit": "6945927d9afcca2b9daf021f8395e53edc5b4eef",
        "license": "MIT (Georgia Institute of Technology and Microsoft Corporation)",
        "paths": "scripts/asplos/data/dataset/train/collect/<op>/p2.1.0/<GPU name>.csv",
        "citation": "Lee, Phanishayee, Mahajan: Forecasting GPU Performance for Deep "
                    "Learning Training and Inference, ASPLOS 2025",
    },
    "mlpredict": {
        "repository": "CDECatapult/ml-performance-prediction",
        "commit": "e649f32d354d8246411b6adafdc65b46811dd111",
        "license": "Apache-2.0",
        "paths": "prediction_model/data/raw_data/<gpu>/<run>/"
                 "benchmark_{convolution,dense}__<date>.pkl",
        "citation": "Justus, Brennan, Bonner, McGough: Predicting the Computational Cost "
                    "of Deep Learning Models, IEEE BigData 2018",
    },
    "pytorch-gpu-benchmark": {
        "repository": "ryujaehun/pytorch-gpu-benchmark",
        "commit": "3f47a9e2a43ca751ffade0add700b54b00e44bf0",
        "license": "MIT (Jaehun Ryu, 2021)",
        "paths": "results/*/*.csv",
        "citation": "ryujaehun/pytorch-gpu-benchmark (GitHub)",
    },
    "zeus": {
        "repository": "ml-energy/zeus",
        "commit": "75a8b9398034eb9baf74ca0a830c2c31bcce52cd "
                  "(trace folder last changed in 43297f658bb9ba05e8b41e2d0cc85c91fff242c7)",
        "license": "Apache-2.0",
        "paths": "examples/research_reproducibility/zeus_nsdi23/trace/summary_power_*.csv",
        "citation": "Zeus: Understanding and Optimizing GPU Energy Consumption of DNN "
                    "Training, NSDI 2023",
    },
    "help": {
        "repository": "HayeonLee/HELP",
        "commit": "45f70eb92d0d735970a33b608d1544ad3c52f285",
        "license": "MIT (HayeonLee, 2024)",
        "paths": "data/{fbnet,nasbench201}/latency/*.pt, data/fbnet/metainfo.pt, "
                 "data/nasbench201/str_arch2idx.pt",
        "citation": "HELP: Hardware-Adaptive Efficient Latency Prediction for NAS via "
                    "Meta-Learning, NeurIPS 2021",
    },
    "neusight-test": {
        "repository": "sitar-lab/NeuSight, read from its public copy trsharm25/NeuSight",
        "commit": "db1fdc966633fe96c0717e0706e7621ad0921ed2",
        "license": "MIT (Georgia Institute of Technology and Microsoft Corporation)",
        "paths": "scripts/asplos/data/dataset/test/test_{linear,bmm,elem,ln,softmax}.csv",
        "citation": "Lee, Phanishayee, Mahajan: Forecasting GPU Performance for Deep "
                    "Learning Training and Inference, ASPLOS 2025",
    },
    "timm": {
        "repository": "huggingface/pytorch-image-models",
        "commit": "aa4b5850c1543fa488abf260f18390eda46cf85d",
        "license": "Apache-2.0",
        "paths": "results/benchmark-{infer,train}-<precision>-<layout>-pt<torch>-cu<cuda>-"
                 "<gpu>[-dynamo].csv",
        "citation": "Wightman: PyTorch Image Models (timm), benchmark.py results",
    },
    "mlperf-inference": {
        "repository": "mlcommons/inference_results_v0.5, _v0.7, _v1.0, _v1.1, _v2.0, _v2.1, "
                      "_v3.0",
        "commit": "v0.5 f5acb8be3da3ebc13cf6ba783cce371f96d275ac, "
                  "v0.7 31060d57b30c7d61f974c91204df538398ec0b46, "
                  "v1.0 f7759baf2fdb9e17d97f07326db6d461d6dc1ef2, "
                  "v1.1 7fc43356c4d71ed6ec97af9d035a34ed146587b8, "
                  "v2.0 425a0d30c6e0cb9b65595881572cbba5f18572eb, "
                  "v2.1 91f7859b8b5847b7c5fdf95ce65699ad6477093b, "
                  "v3.0 1948f9b5b93c5b4dcafe15de0faa08cdf1439fca",
        "license": "Apache-2.0",
        "paths": "<division>/<submitter>/results/<system>/<benchmark>/<scenario>/performance/"
                 "run_1/mlperf_log_summary.txt and <division>/<submitter>/systems/<system>.json",
        "citation": "MLCommons MLPerf Inference results, rounds v0.5-v3.0",
    },
}

NOT_RECORDED = "not-recorded"

# Units and meaning of every column written; MANIFEST.json and docs/data-formats.md use it.
COLUMN_DOC = {
    "op": ("", "operator: conv2d, linear, relu, add, mul, softmax, layernorm"),
    "batch": ("count", "batch size N (linear: input rows; pointwise: rows)"),
    "c_in": ("count", "input channels (linear: in features; pointwise: columns)"),
    "h_in": ("pixels", "input height"),
    "w_in": ("pixels", "input width"),
    "c_out": ("count", "output channels (linear: out features; pointwise: = c_in)"),
    "kernel_h": ("pixels", "kernel height"),
    "kernel_w": ("pixels", "kernel width"),
    "stride_h": ("pixels", "vertical stride"),
    "stride_w": ("pixels", "horizontal stride"),
    "pad_h": ("pixels", "zero padding on top (and bottom, symmetric)"),
    "pad_w": ("pixels", "zero padding on left (and right, symmetric)"),
    "dilation_h": ("pixels", "vertical dilation"),
    "dilation_w": ("pixels", "horizontal dilation"),
    "groups": ("count", "convolution groups"),
    "bias": ("0/1", "layer adds a bias"),
    "dtype": ("", "element type: fp32 or fp16"),
    "pass": ("", "forward or training (forward + backward + update)"),
    "latency_ms": ("ms", "measured time, see timing_method"),
    "gpu": ("", "GPU name as the source recorded it"),
    "source": ("", "short name of the source (see datasets/README.md)"),
    "framework": ("", "framework and version used for the measurement"),
    "library_versions": ("", "CUDA / cuDNN versions, ';'-separated, or not-recorded"),
    "timing_method": ("", "how latency_ms was timed"),
    "main_kernel": ("", "name of the dominant CUDA kernel of the call (NeuSight profiler pass)"),
    "kernel_sequence": ("", "every CUDA kernel launched by the call, ';'-separated"),
    "grid_x": ("blocks", "grid size x of main_kernel"),
    "grid_y": ("blocks", "grid size y of main_kernel"),
    "grid_z": ("blocks", "grid size z of main_kernel"),
    "block_x": ("threads", "block size x of main_kernel"),
    "block_y": ("threads", "block size y of main_kernel"),
    "block_z": ("threads", "block size z of main_kernel"),
    "warps_per_sm": ("warps", "warps per SM as computed by the NeuSight authors"),
    "blocks_per_sm": ("blocks", "blocks per SM as computed by the NeuSight authors"),
    "padding_mode": ("", "TensorFlow padding: SAME or VALID"),
    "h_out": ("pixels", "TensorFlow's output height (SAME: ceil(H/s), VALID: ceil((H-k+1)/s))"),
    "w_out": ("pixels", "TensorFlow's output width"),
    "pad_h_end": ("pixels", "TF's bottom padding; = pad_h + 1 when symmetric_pad_exact is 0"),
    "pad_w_end": ("pixels", "TF's right padding; = pad_w + 1 when symmetric_pad_exact is 0"),
    "symmetric_pad_exact": ("0/1", "1 if TF padded symmetrically (pad_h_end = pad_h); 0 for "
                                   "SAME with an odd total, where TF pads the input in a "
                                   "separate op"),
    "optimizer_id": ("", "MLPredict optimizer id: 0 forward only, 1-6 training step"),
    "optimizer": ("", "optimizer name of optimizer_id (none for forward only)"),
    "activation": ("", "fused activation: none, relu, tanh, sigmoid"),
    "time_ms_min": ("ms", "minimum over the 5 repetitions (each = mean of 50 calls)"),
    "time_ms_max": ("ms", "maximum over the 5 repetitions"),
    "time_ms_std": ("ms", "standard deviation over the 5 repetitions"),
    "overhead_floor_ms": ("ms", "host overhead floor of this source (constant, from its README)"),
    "source_run": ("", "<gpu folder>/<run folder> in the source repository"),
    "network": ("", "network name"),
    "num_gpus": ("count", "GPUs used (nn.DataParallel when > 1)"),
    "mode": ("", "inference or training"),
    "mean_ms": ("ms", "mean per-iteration wall time"),
    "min_ms": ("ms", "minimum per-iteration wall time"),
    "stdev_ms": ("ms", "standard deviation of per-iteration wall time"),
    "n_iters": ("count", "timed iterations"),
    "input_h": ("pixels", "input image height (empty: not recorded)"),
    "input_w": ("pixels", "input image width (empty: not recorded)"),
    "source_dir": ("", "result folder in the source repository"),
    "source_file": ("", "result file in the source repository"),
    "config_id": ("", "row id in shared/data/pytorch-gpu-benchmark/summary.csv"),
    "global_batch": ("count", "batch over all GPUs (= batch x num_gpus)"),
    "result_format": ("", "source result-file generation (v1: 20 iters, v2: 50 iters)"),
    "dataset": ("", "training dataset"),
    "power_limit_w": ("W", "GPU power cap set with NVML"),
    "time_per_epoch_s": ("s", "wall-clock time of one training epoch"),
    "avg_power_w": ("W", "average GPU board power during the epoch (NVML)"),
    "energy_per_epoch_j": ("J", "time_per_epoch_s x avg_power_w (derived by the data converter)"),
    "space": ("", "NAS search space: fbnet or nasbench201"),
    "arch_index": ("", "architecture index in the HELP files"),
    "arch": ("", "architecture: FBNet block names (space-separated) or NB-201 cell string"),
    "gpu_name": ("", "GPU model behind the HELP device key"),
    "zoo_network": ("", "cnnperf zoo network of the same architecture at the zoo's input "
                        "size (empty: none)"),
    "precision": ("", "precision as the source names it (amp: torch.autocast to fp16 with "
                      "fp32 weights; not-recorded: the source does not say)"),
    "runtime": ("", "what ran the network: pytorch (eager), pytorch-compile (torch.compile), "
                    "tensorrt, tensorflow, tensorflow-tensorrt, onnxruntime or not-recorded"),
    "memory_format": ("", "activation layout: nchw, or nhwc (PyTorch channels_last)"),
    "samples_per_s": ("samples/s", "throughput as the source recorded it"),
    "param_count_m": ("M", "learnable parameters in millions, as the source recorded them"),
    "gmacs_per_image": ("GMAC", "multiply-accumulates per image, as the source recorded them "
                                "(empty: not recorded)"),
    "activations_per_image_m": ("M", "activation elements per image, as the source recorded "
                                     "them (empty: not recorded)"),
    "mlperf_version": ("", "MLPerf Inference round (results repository)"),
    "division": ("", "MLPerf division: closed, open or network"),
    "submitter": ("", "organisation that submitted the result"),
    "system_id": ("", "submitted system's name"),
    "accelerator": ("", "accelerator name as published in the system description"),
    "scenario": ("", "MLPerf scenario: SingleStream, MultiStream, Offline or Server"),
    "latency_p50_ns": ("ns", "median per-query latency"),
    "latency_p90_ns": ("ns", "90th-percentile per-query latency"),
    "latency_p99_ns": ("ns", "99th-percentile per-query latency"),
    "latency_mean_ns": ("ns", "mean per-query latency"),
    "samples_per_query": ("count", "samples per query"),
    "system_power_w": ("W", "mean whole-system wall power of the power run (host, fans and "
                            "every accelerator; empty: no power run)"),
    "n_power_samples": ("count", "1 Hz power samples averaged into system_power_w"),
}

# Per-source meanings of shared column names (column_docs).
COLUMN_DOC_BY_SOURCE = {
    ("timm", "latency_ms"): ("ms", "mean time of one step (one batch) over the timed steps: "
                                   "timm's infer_step_time / train_step_time"),
    ("timm", "num_gpus"): ("count", "GPUs used (1: timm's benchmark.py runs on one device)"),
    ("timm", "source_file"): ("", "result file in the source repository's results/ folder"),
    ("mlperf-inference", "latency_ms"): (
        "ms", "SingleStream rows: the scenario's metric, 90th-percentile latency of a "
              "one-sample query (latency_p90_ns / 1e6, an exact decimal shift); empty "
              "otherwise"),
    ("mlperf-inference", "gpu"): ("", "cnnperf GPU database name of the accelerator (empty: "
                                      "not in the database, a MIG slice or a vGPU profile)"),
    ("mlperf-inference", "num_gpus"): ("count", "accelerators in the system (acc_per_node)"),
    ("mlperf-inference", "network"): ("", "MLPerf benchmark name as published"),
    ("mlperf-inference", "framework"): ("", "software stack as submitted"),
    ("mlperf-inference", "source_file"): ("", "inference_results_<round>/<path of the "
                                              "result's mlperf_log_summary.txt>"),
}

MLPREDICT_OPTIMIZERS = {"0": "none", "1": "GradientDescent", "2": "Adadelta",
                        "3": "Adagrad", "4": "Momentum", "5": "Adam", "6": "RMSProp"}
# HELP's "titanx" is the Pascal TITAN X, not the 2015 Maxwell GTX TITAN X: its NB-201
# steps at batch 256 take a median 1.19x the TITAN Xp's (Pascal: 1.11-1.14x by peak FLOPS and
# bandwidth; Maxwell: 1.6-1.8x). datasets/README.md.
HELP_GPU_NAMES = {"1080ti": "GeForce GTX 1080 Ti", "2080ti": "GeForce RTX 2080 Ti",
                  "titan_rtx": "TITAN RTX", "titanx": "TITAN X (Pascal)", "titanxp": "TITAN Xp"}


class DataError(Exception):
    """The input is not what the conversion was written for (wrong file or changed source)."""


def fail(where, msg):
    raise DataError("%s: %s" % (where, msg))


def sha256_bytes(data):
    return hashlib.sha256(data).hexdigest()


def sha256_file(path):
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for chunk in iter(lambda: f.read(1 << 20), b""):
            h.update(chunk)
    return h.hexdigest()


class Input:
    """One source CSV: its rows as dicts and its digest for the manifest."""

    def __init__(self, data_dir, rel, expect_columns):
        """expect_columns: the header, or a list of the headers accepted (timm's files
        order their columns differently by version)."""
        self.rel = rel
        self.path = os.path.join(data_dir, rel)
        if not os.path.isfile(self.path):
            fail(self.path, "missing input file")
        headers = expect_columns if isinstance(expect_columns[0], list) else [expect_columns]
        with open(self.path, newline="", encoding="utf-8") as f:
            reader = csv.DictReader(f)
            if reader.fieldnames not in headers:
                fail(self.path, "expected columns %s, got %s"
                     % (" or ".join(",".join(h) for h in headers),
                        ",".join(reader.fieldnames or [])))
            self.rows = list(reader)
        self.sha256 = sha256_file(self.path)

    def line(self, i):
        # Data row i is on line i + 2 (header is line 1); good enough for messages
        # because no field in these files contains a newline.
        return "%s:%d" % (self.rel, i + 2)

    def manifest(self):
        return {"path": self.rel, "sha256": self.sha256, "rows": len(self.rows)}


def require(inp, i, row, col, allowed):
    if row[col] not in allowed:
        fail(inp.line(i), "field '%s': expected one of %s, got '%s'"
             % (col, "/".join(sorted(allowed)), row[col]))


def as_int(inp, i, row, col):
    try:
        v = int(row[col])
    except ValueError:
        fail(inp.line(i), "field '%s': expected an integer, got '%s'" % (col, row[col]))
    return v


def positive_float_str(inp, i, row, col):
    """Checks a measured value parses as a positive number; returns the original string."""
    s = row[col]
    try:
        ok = float(s) > 0
    except ValueError:
        ok = False
    if not ok:
        fail(inp.line(i), "field '%s': expected a positive number, got '%s'" % (col, s))
    return s


def csv_bytes(columns, rows):
    buf = io.StringIO()
    w = csv.writer(buf, lineterminator="\n")
    w.writerow(columns)
    for r in rows:
        w.writerow([r.get(c, "") for c in columns])
    return buf.getvalue().encode("utf-8")


def gzip_bytes(data):
    buf = io.BytesIO()
    # filename='' and mtime=0 keep the header free of anything that changes per run.
    with gzip.GzipFile(filename="", mode="wb", fileobj=buf, compresslevel=9, mtime=0) as g:
        g.write(data)
    return buf.getvalue()


def count_by(rows, key):
    counts = {}
    for r in rows:
        counts[r[key]] = counts.get(r[key], 0) + 1
    return dict(sorted(counts.items()))


def canonical_defaults():
    return {"batch": "1", "c_in": "1", "h_in": "1", "w_in": "1", "c_out": "1",
            "kernel_h": "1", "kernel_w": "1", "stride_h": "1", "stride_w": "1",
            "pad_h": "0", "pad_w": "0", "dilation_h": "1", "dilation_w": "1",
            "groups": "1", "bias": "0", "dtype": "fp32", "pass": "forward"}


# ---------------------------------------------------------------- NeuSight
NEUSIGHT_PROV = {"source": "neusight", "framework": "pytorch-2.1.0",
                 "library_versions": "cuda-12.1;cudnn-8.9.2",
                 "timing_method": "cuda-events-mean-of-5-fastest-of-25"}
NEUSIGHT_EXTRAS = ["main_kernel", "kernel_sequence", "grid_x", "grid_y", "grid_z",
                   "block_x", "block_y", "block_z", "warps_per_sm", "blocks_per_sm"]
NEUSIGHT_ELEMENTWISE_OPS = {"relu": "relu", "add": "add", "mul": "mul",
                            "softmax": "softmax", "ln": "layernorm"}


def check_neusight_versions(inp, i, row, has_cudnn):
    require(inp, i, row, "torch_version", {"2.1.0"})
    require(inp, i, row, "cuda_version", {"cu121"})
    if has_cudnn:
        require(inp, i, row, "cudnn_version", {"8902"})
    require(inp, i, row, "dtype", {"float32"})


def build_neusight(data_dir, stats):
    conv = Input(data_dir, "neusight/conv2d.csv",
                 ["gpu", "batch", "c_in", "c_out", "kernel", "h_in", "w_in", "stride",
                  "padding", "dilation", "groups", "bias", "dtype", "latency_ms",
                  "main_kernel", "grid_x", "grid_y", "grid_z", "block_x", "block_y",
                  "block_z", "warps_per_sm", "blocks_per_sm", "kernel_sequence",
                  "torch_version", "cudnn_version", "cuda_version"])
    lin = Input(data_dir, "neusight/linear.csv",
                ["gpu", "batch", "m", "in_features", "out_features", "bias", "dtype",
                 "latency_ms", "main_kernel", "grid_x", "grid_y", "grid_z", "block_x",
                 "block_y", "block_z", "warps_per_sm", "blocks_per_sm", "kernel_sequence",
                 "torch_version", "cudnn_version", "cuda_version"])
    elt = Input(data_dir, "neusight/elementwise.csv",
                ["gpu", "op", "rows_b", "cols_h", "num_elements", "dtype", "latency_ms",
                 "grid_x", "block_x", "warps_per_sm", "blocks_per_sm", "torch_version",
                 "cuda_version"])
    out = []
    for i, r in enumerate(conv.rows):
        check_neusight_versions(conv, i, r, True)
        o = canonical_defaults()
        o.update({"op": "conv2d", "batch": r["batch"], "c_in": r["c_in"], "h_in": r["h_in"],
                  "w_in": r["w_in"], "c_out": r["c_out"], "kernel_h": r["kernel"],
                  "kernel_w": r["kernel"], "stride_h": r["stride"], "stride_w": r["stride"],
                  "pad_h": r["padding"], "pad_w": r["padding"],
                  "dilation_h": r["dilation"], "dilation_w": r["dilation"],
                  "groups": r["groups"], "bias": r["bias"],
                  "latency_ms": positive_float_str(conv, i, r, "latency_ms"),
                  "gpu": r["gpu"]})
        o.update(NEUSIGHT_PROV)
        for c in NEUSIGHT_EXTRAS:
            o[c] = r[c]
        out.append(o)
    for i, r in enumerate(lin.rows):
        check_neusight_versions(lin, i, r, True)
        # Input is randn(batch, m, in_features); rows of the GEMM = batch * m.
        require(lin, i, r, "batch", {"1"})
        o = canonical_defaults()
        o.update({"op": "linear", "batch": r["m"], "c_in": r["in_features"],
                  "c_out": r["out_features"], "bias": r["bias"],
                  "latency_ms": positive_float_str(lin, i, r, "latency_ms"),
                  "gpu": r["gpu"]})
        o.update(NEUSIGHT_PROV)
        for c in NEUSIGHT_EXTRAS:
            o[c] = r[c]
        out.append(o)
    for i, r in enumerate(elt.rows):
        check_neusight_versions(elt, i, r, False)
        require(elt, i, r, "op", set(NEUSIGHT_ELEMENTWISE_OPS))
        if as_int(elt, i, r, "rows_b") * as_int(elt, i, r, "cols_h") != \
                as_int(elt, i, r, "num_elements"):
            fail(elt.line(i), "num_elements != rows_b * cols_h")
        o = canonical_defaults()
        o.update({"op": NEUSIGHT_ELEMENTWISE_OPS[r["op"]], "batch": r["rows_b"],
                  "c_in": r["cols_h"], "c_out": r["cols_h"],
                  "latency_ms": positive_float_str(elt, i, r, "latency_ms"),
                  "gpu": r["gpu"]})
        o.update(NEUSIGHT_PROV)
        for c in ("grid_x", "block_x", "warps_per_sm", "blocks_per_sm"):
            o[c] = r[c]
        out.append(o)
    stats["neusight_rows_by_op"] = count_by(out, "op")
    columns = CANONICAL + PROVENANCE + NEUSIGHT_EXTRAS
    return columns, out, [conv, lin, elt], ["neusight"]


# ---------------------------------------------------------------- NeuSight test sets
NEUSIGHT_TEST_HEAD = ["OPName", "Latency", "Device", "Torch Version", "CUDNN Version",
                      "Kernel Name", "Warps per SM", "Blocks per SM", "Grid x", "Grid y",
                      "Grid z", "Block x", "Block y", "Block z", "CUDA Version"]
NEUSIGHT_TEST_GEMM_COLUMNS = NEUSIGHT_TEST_HEAD + ["Kernels", "B", "M", "N", "K"]
NEUSIGHT_TEST_VEC_COLUMNS = NEUSIGHT_TEST_HEAD + ["B", "H", "large"]
NEUSIGHT_TEST_EXTRAS = {"main_kernel": "Kernel Name", "grid_x": "Grid x", "grid_y": "Grid y",
                        "grid_z": "Grid z", "block_x": "Block x", "block_y": "Block y",
                        "block_z": "Block z", "warps_per_sm": "Warps per SM",
                        "blocks_per_sm": "Blocks per SM"}
# NeuSight's pointwise op names -> cnnperf ops (all one tensor in, one out, except add and mul,
# which read two tensors of the shape, as cnnperf's add/mul do).
NEUSIGHT_TEST_VEC_OPS = {"add": "add", "mul": "mul", "relu": "relu", "gelu": "gelu",
                         "tanh": "tanh", "ln": "layernorm", "softmax": "softmax"}
# Left out: addu/mulu/divu/powu are tensor-scalar ops (one tensor read), which cnnperf's
# two-tensor add/mul would count double; div and pow have no cnnperf op.
NEUSIGHT_TEST_VEC_LEFT_OUT = {"addu", "mulu", "divu", "powu", "div", "pow"}


def check_neusight_test_row(inp, i, row, ops):
    require(inp, i, row, "OPName", ops)
    require(inp, i, row, "Torch Version", {"p2.1.0"})
    require(inp, i, row, "CUDA Version", {"cu121"})
    require(inp, i, row, "CUDNN Version", {"8902"})


def neusight_test_row(inp, i, r):
    o = canonical_defaults()
    o.update({"latency_ms": positive_float_str(inp, i, r, "Latency"), "gpu": r["Device"]})
    o.update(NEUSIGHT_PROV)
    for c, src in NEUSIGHT_TEST_EXTRAS.items():
        o[c] = r[src]
    return o


def build_neusight_test(data_dir, stats):
    """NeuSight's test sets: the harness of build_neusight (its collect.py), FP32 tensors
    (torch.randn / torch.zeros default), new GPUs (L4, H100)."""
    lin = Input(data_dir, "neusight-test/linear.csv", NEUSIGHT_TEST_GEMM_COLUMNS)
    bmm = Input(data_dir, "neusight-test/bmm.csv", NEUSIGHT_TEST_GEMM_COLUMNS)
    vecs = [Input(data_dir, "neusight-test/%s.csv" % name, NEUSIGHT_TEST_VEC_COLUMNS)
            for name in ("elem", "ln", "softmax")]
    out = []
    left_out = {}
    for i, r in enumerate(lin.rows):
        check_neusight_test_row(lin, i, r, {"linear"})
        # collect.py: input randn(B, M, N) through nn.Linear(N, K, bias=True), so the GEMM
        # has B*M rows, N in features and K out features.
        require(lin, i, r, "B", {"1"})
        o = neusight_test_row(lin, i, r)
        o.update({"op": "linear", "batch": r["M"], "c_in": r["N"], "c_out": r["K"],
                  "bias": "1"})
        # The profiler pass wrote ";" before every kernel name; layers_neusight writes none.
        if r["Kernels"] and not r["Kernels"].startswith(";"):
            fail(lin.line(i), "field 'Kernels': expected ';'-prefixed kernel names")
        o["kernel_sequence"] = r["Kernels"][1:]
        out.append(o)
    # torch.bmm multiplies B separate matrix pairs: cnnperf's linear shares one weight over
    # its rows (reads K x N once, bmm reads B of them), and a grouped 1x1 conv of the same
    # arithmetic would claim a cuDNN convolution that was not run. No op represents it.
    for i, r in enumerate(bmm.rows):
        check_neusight_test_row(bmm, i, r, {"bmm"})
    left_out["bmm"] = len(bmm.rows)
    for inp in vecs:
        for i, r in enumerate(inp.rows):
            check_neusight_test_row(inp, i, r,
                                    set(NEUSIGHT_TEST_VEC_OPS) | NEUSIGHT_TEST_VEC_LEFT_OUT)
            # NeuSight's selection flag of its large test shapes, true on every row.
            require(inp, i, r, "large", {"True"})
            if r["OPName"] in NEUSIGHT_TEST_VEC_LEFT_OUT:
                left_out[r["OPName"]] = left_out.get(r["OPName"], 0) + 1
                continue
            o = neusight_test_row(inp, i, r)
            o.update({"op": NEUSIGHT_TEST_VEC_OPS[r["OPName"]], "batch": r["B"],
                      "c_in": r["H"], "c_out": r["H"]})
            out.append(o)
    stats["neusight_test_rows_by_op"] = count_by(out, "op")
    stats["neusight_test_left_out_rows_by_source_op"] = dict(sorted(left_out.items()))
    columns = CANONICAL + PROVENANCE + NEUSIGHT_EXTRAS
    return columns, out, [lin, bmm] + vecs, ["neusight-test"]


# ---------------------------------------------------------------- MLPredict
MLPREDICT_PROV = {"source": "mlpredict", "framework": "tensorflow-1.10.1",
                  "library_versions": "cuda-9.0;cudnn-7",
                  "timing_method": "host-wallclock-session-run-median-of-5x50"}
MLPREDICT_FLOOR_MS = "0.14"
MLPREDICT_EXTRAS = ["padding_mode", "h_out", "w_out", "pad_h_end", "pad_w_end",
                    "symmetric_pad_exact", "optimizer_id", "optimizer", "activation",
                    "time_ms_min", "time_ms_max", "time_ms_std", "overhead_floor_ms",
                    "source_run"]


def conv_out(size, pad_begin, pad_end, kernel, stride):
    """Canonical (PyTorch/cuDNN) output size, dilation 1."""
    return (size + pad_begin + pad_end - kernel) // stride + 1


def tf_same_geometry(size, kernel, stride):
    """TF SAME: output ceil(H/s); total pad, extra pixel at the bottom/right."""
    out = -(-size // stride)
    total = max((out - 1) * stride + kernel - size, 0)
    return out, total


def map_tf_padding(inp, i, size, kernel, stride, mode, stats):
    """Returns (h_out, pad_begin, pad_end, symmetric_exact) and asserts the geometry."""
    if mode == "VALID":
        out = -(-(size - kernel + 1) // stride)
        if out < 1:
            fail(inp.line(i), "VALID convolution with an empty output")
        if conv_out(size, 0, 0, kernel, stride) != out:
            fail(inp.line(i), "canonical formula disagrees with TF VALID output size")
        stats["valid"] += 1
        return out, 0, 0, True
    out, total = tf_same_geometry(size, kernel, stride)
    # TF puts floor(total/2) on top/left and the rest on bottom/right. cuDNN pads
    # symmetrically only, so with an odd total TF 1.10 pads the input in a separate op
    # first: write TF's real padding, so the row says so (pad_h_end = pad_h + 1).
    down = total // 2
    if conv_out(size, down, total - down, kernel, stride) != out:
        fail(inp.line(i), "TF's SAME padding does not reproduce TF's output size")
    if total % 2 == 0:
        stats["same_even_total"] += 1
    elif stride == 1:
        stats["same_odd_stride1"] += 1
    else:
        stats["same_odd_strided"] += 1
    return out, down, total - down, total % 2 == 0


def build_mlpredict(data_dir, stats):
    conv = Input(data_dir, "mlpredict/conv2d_tf.csv",
                 ["gpu", "batch", "h_in", "w_in", "c_in", "c_out", "kernel", "stride",
                  "padding_mode", "use_bias", "optimizer_id", "activation",
                  "precision_bits", "time_ms_median", "time_ms_min", "time_ms_max",
                  "time_ms_std", "source_run"])
    dense = Input(data_dir, "mlpredict/dense_tf.csv",
                  ["gpu", "batch", "in_features", "out_features", "optimizer_id",
                   "activation", "precision_bits", "time_ms_median", "time_ms_min",
                   "time_ms_max", "time_ms_std", "source_run"])
    pad_stats = {"valid": 0, "same_even_total": 0, "same_odd_stride1": 0,
                 "same_odd_strided": 0}
    out = []

    def common(inp, i, r):
        require(inp, i, r, "precision_bits", {"32"})
        require(inp, i, r, "optimizer_id", set(MLPREDICT_OPTIMIZERS))
        o = canonical_defaults()
        o.update({"pass": "forward" if r["optimizer_id"] == "0" else "training",
                  "latency_ms": positive_float_str(inp, i, r, "time_ms_median"),
                  "gpu": r["gpu"], "optimizer_id": r["optimizer_id"],
                  "optimizer": MLPREDICT_OPTIMIZERS[r["optimizer_id"]],
                  "activation": r["activation"], "time_ms_min": r["time_ms_min"],
                  "time_ms_max": r["time_ms_max"], "time_ms_std": r["time_ms_std"],
                  "overhead_floor_ms": MLPREDICT_FLOOR_MS, "source_run": r["source_run"]})
        o.update(MLPREDICT_PROV)
        return o

    for i, r in enumerate(conv.rows):
        o = common(conv, i, r)
        if r["h_in"] != r["w_in"]:
            fail(conv.line(i), "expected a square input (h_in == w_in)")
        require(conv, i, r, "padding_mode", {"SAME", "VALID"})
        require(conv, i, r, "use_bias", {"0", "1"})
        size = as_int(conv, i, r, "h_in")
        k = as_int(conv, i, r, "kernel")
        s = as_int(conv, i, r, "stride")
        h_out, pad, pad_end, exact = map_tf_padding(conv, i, size, k, s,
                                                    r["padding_mode"], pad_stats)
        o.update({"op": "conv2d", "batch": r["batch"], "c_in": r["c_in"],
                  "h_in": r["h_in"], "w_in": r["w_in"], "c_out": r["c_out"],
                  "kernel_h": r["kernel"], "kernel_w": r["kernel"],
                  "stride_h": r["stride"], "stride_w": r["stride"],
                  "pad_h": str(pad), "pad_w": str(pad), "bias": r["use_bias"],
                  "padding_mode": r["padding_mode"], "h_out": str(h_out),
                  "w_out": str(h_out), "pad_h_end": str(pad_end), "pad_w_end": str(pad_end),
                  "symmetric_pad_exact": "1" if exact else "0"})
        out.append(o)
    for i, r in enumerate(dense.rows):
        o = common(dense, i, r)
        # tf.layers.dense with its default use_bias=True (the source's dense benchmark
        # passes no use_bias), so every dense row has a bias.
        o.update({"op": "linear", "batch": r["batch"], "c_in": r["in_features"],
                  "c_out": r["out_features"], "bias": "1"})
        out.append(o)
    stats["mlpredict_padding"] = pad_stats
    stats["mlpredict_rows_by_op"] = count_by(out, "op")
    columns = CANONICAL + PROVENANCE + MLPREDICT_EXTRAS
    return columns, out, [conv, dense], ["mlpredict"]


# ---------------------------------------------------------------- pytorch-gpu-benchmark
def cudnn_version_string(code):
    """cuDNN 7/8 version code MAJOR*1000 + MINOR*100 + PATCH, e.g. 8004 -> 8.0.4."""
    n = int(code)
    return "%d.%d.%d" % (n // 1000, (n % 1000) // 100, n % 100)


def build_torchvision(data_dir, stats):
    inp = Input(data_dir, "pytorch-gpu-benchmark/summary.csv",
                ["config_id", "gpu", "source_dir", "num_gpus", "precision", "mode", "model",
                 "global_batch", "n_iters", "median_ms", "mean_ms", "min_ms", "stdev_ms",
                 "cuda", "cudnn", "result_format", "source_file"])
    out = []
    dropped_fp64 = 0
    for i, r in enumerate(inp.rows):
        require(inp, i, r, "precision", {"fp32", "fp16", "fp64"})
        require(inp, i, r, "mode", {"inference", "training"})
        if r["precision"] == "fp64":
            # cnnperf models fp32/fp16 only (DESIGN §3); fp64 rows are left out.
            dropped_fp64 += 1
            continue
        gpus = as_int(inp, i, r, "num_gpus")
        global_batch = as_int(inp, i, r, "global_batch")
        if gpus < 1 or global_batch % gpus:
            fail(inp.line(i), "global_batch is not a multiple of num_gpus")
        if r["cuda"] and r["cudnn"]:
            libs = "cuda-%s;cudnn-%s" % (r["cuda"], cudnn_version_string(r["cudnn"]))
        elif not r["cuda"] and not r["cudnn"]:
            libs = NOT_RECORDED
        else:
            fail(inp.line(i), "only one of cuda/cudnn recorded")
        out.append({
            "network": r["model"], "gpu": r["gpu"], "num_gpus": r["num_gpus"],
            "batch": str(global_batch // gpus), "dtype": r["precision"], "mode": r["mode"],
            "latency_ms": positive_float_str(inp, i, r, "median_ms"),
            "mean_ms": r["mean_ms"], "min_ms": r["min_ms"], "stdev_ms": r["stdev_ms"],
            "n_iters": r["n_iters"], "input_h": "224", "input_w": "224",
            "source": "pytorch-gpu-benchmark", "framework": "pytorch",
            "library_versions": libs, "timing_method": "host-wallclock-sync-incl-h2d-copy",
            "source_dir": r["source_dir"], "source_file": r["source_file"],
            "config_id": r["config_id"], "global_batch": r["global_batch"],
            "result_format": r["result_format"]})
    stats["torchvision_dropped_fp64_rows"] = dropped_fp64
    columns = ["network", "gpu", "num_gpus", "batch", "dtype", "mode", "latency_ms",
               "mean_ms", "min_ms", "stdev_ms", "n_iters", "input_h", "input_w", "source",
               "framework", "library_versions", "timing_method", "source_dir",
               "source_file", "config_id", "global_batch", "result_format"]
    return columns, out, [inp], ["pytorch-gpu-benchmark"]


# ---------------------------------------------------------------- timm
TIMM_FILE = re.compile(r"^benchmark-(infer|train)-(amp)-(nchw|nhwc)-(pt\d+)-(cu\d+)-"
                       r"(rtx3090|rtx4090|4090|5090)(-dynamo)?\.csv$")
# File-name tokens. The torch token drops the dots (pt240 = 2.4.0 per the source README;
# pt112/pt113 are 1.12/1.13, their patch release not recorded).
TIMM_TORCH = {"pt112": "pytorch-1.12", "pt113": "pytorch-1.13", "pt210": "pytorch-2.1.0",
              "pt240": "pytorch-2.4.0", "pt291": "pytorch-2.9.1"}
TIMM_CUDA = {"cu113": "cuda-11.3", "cu117": "cuda-11.7", "cu121": "cuda-12.1",
             "cu124": "cuda-12.4", "cu128": "cuda-12.8", "cu130": "cuda-13.0"}
TIMM_GPUS = {"rtx3090": "NVIDIA GeForce RTX 3090", "rtx4090": "NVIDIA GeForce RTX 4090",
             "4090": "NVIDIA GeForce RTX 4090", "5090": "NVIDIA GeForce RTX 5090"}
TIMM_INFER_COLUMNS = [
    ["model", "infer_samples_per_sec", "infer_step_time", "infer_batch_size", "infer_img_size",
     "infer_gmacs", "infer_macts", "param_count"],
    ["model", "infer_img_size", "infer_batch_size", "infer_samples_per_sec", "infer_step_time",
     "infer_gmacs", "infer_macts", "param_count"],
    ["model", "infer_img_size", "infer_samples_per_sec", "infer_step_time", "infer_batch_size",
     "param_count", "infer_gmacs", "infer_macts"]]
TIMM_TRAIN_COLUMNS = [["model", "train_samples_per_sec", "train_step_time", "train_batch_size",
                       "train_img_size", "param_count"]]
# timm model -> cnnperf zoo network of the same architecture: (zoo name, the zoo's input size,
# parameters of the zoo's inference path). A row gets the zoo name only at that input size,
# and the build checks timm's param_count (millions, 2 decimals) against the zoo's. timm's
# resnet/resnext/wide_resnet default (no "d"/"c"/"s"/"t" stem suffix) is torchvision's ResNet
# V1.5: stride on the 3x3.
TIMM_ZOO = {
    "resnet18": ("resnet18", 224, 11689512),
    "resnet34": ("resnet34", 224, 21797672),
    "resnet50": ("resnet50", 224, 25557032),
    "resnet101": ("resnet101", 224, 44549160),
    "resnet152": ("resnet152", 224, 60192808),
    # tv_*: timm's names for torchvision's own weights of the same architectures.
    "tv_resnet34": ("resnet34", 224, 21797672),
    "tv_resnet50": ("resnet50", 224, 25557032),
    "tv_resnet101": ("resnet101", 224, 44549160),
    "tv_resnet152": ("resnet152", 224, 60192808),
    "tv_resnext50_32x4d": ("resnext50_32x4d", 224, 25028904),
    "tv_densenet121": ("densenet121", 224, 7978856),
    "resnext50_32x4d": ("resnext50_32x4d", 224, 25028904),
    "resnext101_32x8d": ("resnext101_32x8d", 224, 88791336),
    "wide_resnet50_2": ("wide_resnet50_2", 224, 68883240),
    "wide_resnet101_2": ("wide_resnet101_2", 224, 126886696),
    "densenet121": ("densenet121", 224, 7978856),
    "densenet161": ("densenet161", 224, 28681000),
    "densenet169": ("densenet169", 224, 14149480),
    "densenet201": ("densenet201", 224, 20013928),
    # timm builds Inception v3 without the AuxLogits head, which the zoo's inference path
    # skips too (torchvision's 27,161,264 parameters less the head's 3,326,696).
    "inception_v3": ("inception_v3", 299, 23834568),
    # timm's MobileNetV2 / MNASNet-B1 block strings are torchvision's layer for layer
    # (mnasnet_100 = MNASNet 1.0; 050/075 round channels to 8 as torchvision's alpha does).
    "mobilenetv2_100": ("mobilenet_v2", 224, 3504872),
    "mnasnet_050": ("mnasnet0_5", 224, 2218512),
    "mnasnet_075": ("mnasnet0_75", 224, 3170208),
    "mnasnet_100": ("mnasnet1_0", 224, 4383312),
    # timm's efficientnet_bN (PyTorch padding, not the tf_ "SAME" ports) is torchvision's
    # efficientnet_bN; each only at the zoo's resolution.
    "efficientnet_b0": ("efficientnet_b0", 224, 5288548),
    "efficientnet_b1": ("efficientnet_b1", 240, 7794184),
    "efficientnet_b2": ("efficientnet_b2", 288, 9109994),
    "efficientnet_b3": ("efficientnet_b3", 300, 12233232),
    "efficientnet_b4": ("efficientnet_b4", 380, 19341616),
    "efficientnet_b5": ("efficientnet_b5", 456, 30389784),
    "efficientnet_b6": ("efficientnet_b6", 528, 43040704),
    "efficientnet_b7": ("efficientnet_b7", 600, 66347960),
}
# Not mapped although the name matches a zoo network: timm's vgg* replaces the classifier's
# Linear layers by a 7x7 and a 1x1 convolution (ConvMlp), its mobilenetv3_large_100/
# small_100 end in a 1x1 conv head after pooling where torchvision has a Linear, and its
# xception is the Cadene port whose block order was not checked against the zoo's Keras one.


def integer_text(inp, i, row, col):
    """An integer count the source may write as a float ("1024.0"): its integer text."""
    try:
        v = float(row[col])
    except ValueError:
        v = 0.5
    if v != int(v) or v < 1:
        fail(inp.line(i), "field '%s': expected a positive integer, got '%s'" % (col, row[col]))
    return str(int(v))


def build_timm(data_dir, stats):
    folder = os.path.join(data_dir, "timm-benchmark")
    if not os.path.isdir(folder):
        fail(folder, "missing input folder")
    names = sorted(n for n in os.listdir(folder) if n.endswith(".csv"))
    if not names:
        fail(folder, "no benchmark-*.csv files")
    inputs, out = [], []
    no_step_time = 0
    for name in names:
        m = TIMM_FILE.match(name)
        if not m:
            fail(os.path.join(folder, name), "file name does not follow benchmark-{infer,train}-"
                 "amp-{nchw,nhwc}-pt<v>-cu<v>-<gpu>[-dynamo].csv")
        kind, precision, layout, torch, cuda, gpu, dynamo = m.groups()
        if torch not in TIMM_TORCH or cuda not in TIMM_CUDA:
            fail(name, "unknown PyTorch/CUDA token %s/%s" % (torch, cuda))
        inp = Input(data_dir, "timm-benchmark/" + name,
                    TIMM_INFER_COLUMNS if kind == "infer" else TIMM_TRAIN_COLUMNS)
        inputs.append(inp)
        for i, r in enumerate(inp.rows):
            step = r[kind + "_step_time"]
            if step == "" and r[kind + "_samples_per_sec"] == "" \
                    and r[kind + "_batch_size"] == "":
                no_step_time += 1  # timm wrote the row without a run (no batch fit)
                continue
            size = integer_text(inp, i, r, kind + "_img_size")
            zoo = TIMM_ZOO.get(r["model"])
            zoo_name = ""
            if zoo and int(size) == zoo[1]:
                if abs(float(r["param_count"]) - zoo[2] / 1e6) > 0.0051:
                    fail(inp.line(i), "timm's %s has %s M parameters, the zoo's %s %d"
                         % (r["model"], r["param_count"], zoo[0], zoo[2]))
                zoo_name = zoo[0]
            out.append({
                "network": r["model"], "zoo_network": zoo_name, "gpu": TIMM_GPUS[gpu],
                "num_gpus": "1", "batch": integer_text(inp, i, r, kind + "_batch_size"),
                "dtype": "fp16", "precision": precision,
                "mode": "inference" if kind == "infer" else "training",
                "runtime": "pytorch-compile" if dynamo else "pytorch",
                "memory_format": layout,
                "latency_ms": positive_float_str(inp, i, r, kind + "_step_time"),
                "samples_per_s": positive_float_str(inp, i, r, kind + "_samples_per_sec"),
                "input_h": size, "input_w": size, "param_count_m": r["param_count"],
                "gmacs_per_image": r.get("infer_gmacs", ""),
                "activations_per_image_m": r.get("infer_macts", ""),
                "source": "timm", "framework": TIMM_TORCH[torch],
                "library_versions": TIMM_CUDA[cuda],
                "timing_method": "host-wallclock-cuda-sync-per-step-mean-input-on-gpu",
                "source_file": name})
    stats["timm_rows_without_a_run"] = no_step_time
    stats["timm_rows_by_zoo_network"] = count_by([o for o in out if o["zoo_network"]],
                                                 "zoo_network")
    columns = ["network", "zoo_network", "gpu", "num_gpus", "batch", "dtype", "precision",
               "mode", "runtime", "memory_format", "latency_ms", "samples_per_s", "input_h",
               "input_w", "param_count_m", "gmacs_per_image", "activations_per_image_m",
               "source", "framework", "library_versions", "timing_method", "source_file"]
    return columns, out, inputs, ["timm"]


# ---------------------------------------------------------------- MLPerf Inference
MLPERF_COLUMNS = ["round", "division", "submitter", "system_id", "accelerator", "acc_per_node",
                  "framework", "benchmark", "scenario", "result_valid", "samples_per_s",
                  "p90_ns", "mean_ns", "p50_ns", "p99_ns", "samples_per_query", "avg_power_W",
                  "n_power_samples", "path"]
MLPERF_SCENARIOS = {"SingleStream": "SingleStream", "singlestream": "SingleStream",
                    "MultiStream": "MultiStream", "multistream": "MultiStream",
                    "Offline": "Offline", "offline": "Offline", "Server": "Server"}
# MLPerf's resnet50 (v0.5: resnet) is ResNet-50 v1.5 at 224x224: the zoo's resnet50.
MLPERF_ZOO = {"resnet50": "resnet50", "resnet": "resnet50"}
# Accelerator as published -> cnnperf GPU database name; "" where the database has no such
# GPU, where the accelerator is a part of one (MIG slice) or a vGPU profile, or where the
# name leaves the model open. The published names are kept in `accelerator`.
MLPERF_GPUS = {
    "NVIDIA TITAN RTX": "titan-rtx",
    "NVIDIA GeForce GTX 1080": "gtx-1080",
    "NVIDIA Quadro RTX 6000": "quadro-rtx-6000",
    "NVIDIA Quadro RTX 8000": "quadro-rtx-8000",
    "NVIDIA RTX A5000": "rtx-a5000",
    "NVIDIA GeForce RTX 4090 (Ada Lovelace)": "rtx-4090",
    "NVIDIA V100S": "v100s-pcie-32gb",  # the V100S is a PCIe 32 GB card only
    "Nvidia Tesla V100 SXM3": "",  # DGX-2's 350 W V100 variant; not in the database
    "NVIDIA Xavier": "jetson-agx-xavier",  # NVIDIA's and Krai's AGX Xavier developer kits
    "NVIDIA AGX Xavier": "jetson-agx-xavier",
    "NVIDIA Xavier NX": "jetson-xavier-nx",
    # NVIDIA's Orin_TRT systems are AGX Orin developer kits: the full Orin GPU, which the
    # database files as the 64 GB module (docs/gpus.md).
    "NVIDIA Orin": "jetson-agx-orin-64gb",
    "NVIDIA Jetson AGX Orin": "jetson-agx-orin-64gb",
    "NVIDIA Orin NX": "",
    "NVIDIA Drive-A100-PCIe": "",
    "NVIDIA A2": "",
    "NVIDIA A16": "",
    "NVIDIA A10": "a10",
    "NVIDIA A10-24Q": "",  # vGPU profile
    "NVIDIA A30": "a30",
    "NVIDIA A30-PCIe-24GB": "a30",
    "NVIDIA A30 (1x1g.3gb MIG)": "",
    "NVIDIA A30 (1x1g.6gb MIG)": "",
    "NVIDIA A30 (4x1g.6gb MIG)": "",
    "NVIDIA A100-PCIE-40GB": "a100-pcie-40gb",
    "A100-PCIE-40GB": "a100-pcie-40gb",
    "NVIDIA A100-PCIe-40GB": "a100-pcie-40gb",
    "NVIDIA A100-PCIe": "",  # by round: MLPERF_GPUS_BY_ROUND
    "NVIDIA A100-PCIE-80GB": "a100-pcie-80gb",
    "NVIDIA A100-PCIe-80GB": "a100-pcie-80gb",
    "NVIDIA A100_PCIe_80GB": "a100-pcie-80gb",
    "NVIDIA A100-PCIE-80GB (7x1g.10gb MIG)": "",
    "NVIDIA A100-PCIe-80GB (1x1g.10gb MIG)": "",
    # v0.7's DGX A100 (results of October 2020, before the 80 GB A100 was announced).
    "NVIDIA A100-SXM4": "a100-sxm4-40gb",
    "NVIDIA A100-SXM4 (1x1g.5gb MIG)": "",
    "NVIDIA A100-SXM4-40GB": "a100-sxm4-40gb",
    "NVIDIA A100-SXM-40GB": "a100-sxm4-40gb",
    "NVIDIA A100-SXM-80GB": "a100-sxm4-80gb",
    "NVIDIA A100-SXM4-80GB": "a100-sxm4-80gb",
    # The same A100 SXM 80 GB with a custom thermal solution (CTS) or a 500 W power limit
    # (the database's card is the 400 W one: peak rates match, sustained clocks may not).
    "NVIDIA A100-SXM-80GB CTS": "a100-sxm4-80gb",
    "NVIDIA A100-SXM4-80GB CTS": "a100-sxm4-80gb",
    "NVIDIA A100-SXM-80GB-500W": "a100-sxm4-80gb",
    "NVIDIA A100-SXM-80GB (1x1g.10gb MIG)": "",
    "NVIDIA A100-SXM-80GB (7x1g.10gb MIG)": "",
    "NVIDIA A100-SXM-80C": "",  # vGPU profile
    "NVIDIA H100-SXM-80GB": "h100-sxm5-80gb",
    "NVIDIA H100-PCIe-80GB": "h100-pcie-80gb",
    "NVIDIA H100-80C": "",  # vGPU profile
    "NVIDIA L4": "l4",
    "NVIDIA L40": "l40",
}
# "A100-PCIe" in rounds that predate the 80 GB PCIe card (June 2021); v1.1's is left open.
MLPERF_GPUS_BY_ROUND = {("NVIDIA A100-PCIe", "v0.7"): "a100-pcie-40gb",
                        ("NVIDIA A100-PCIe", "v1.0"): "a100-pcie-40gb"}


def mlperf_runtime(inp, i, framework):
    """The runtime named by a submission's software stack; None for ArmNN (see build)."""
    f = framework.lower()
    if f.startswith("armnn"):
        return None
    if f.startswith("tensorflow"):
        return "tensorflow-tensorrt" if "tensorrt" in f else "tensorflow"
    if "onnx" in f:
        return "onnxruntime"
    if f.startswith("pytorch"):
        return "pytorch"
    if "tensorrt" in f:
        return "tensorrt"
    if re.match(r"^(cuda [0-9.]+|ngc mlperf v[0-9.]+)$", f):
        return NOT_RECORDED  # the stack names no runtime
    fail(inp.line(i), "field 'framework': no runtime rule for '%s'" % framework)
    return None


def ns_to_ms_text(inp, i, row, col):
    """An integer nanosecond count as milliseconds: an exact decimal shift, no rounding."""
    if not row[col].isdigit():
        fail(inp.line(i), "field '%s': expected an integer count of ns, got '%s'"
             % (col, row[col]))
    whole, frac = divmod(int(row[col]), 10 ** 6)
    return ("%d.%06d" % (whole, frac)).rstrip("0").rstrip(".")


def build_mlperf(data_dir, stats):
    inp = Input(data_dir, "mlperf-inference/results.csv", MLPERF_COLUMNS)
    out = []
    armnn = 0
    for i, r in enumerate(inp.rows):
        require(inp, i, r, "result_valid", {"VALID"})
        require(inp, i, r, "scenario", set(MLPERF_SCENARIOS))
        require(inp, i, r, "accelerator", set(MLPERF_GPUS))
        runtime = mlperf_runtime(inp, i, r["framework"])
        if runtime is None:
            # Krai's odroid-armnn-* systems: an ODROID board's Arm GPU through ArmNN's OpenCL
            # backend (ArmNN has no CUDA backend), whatever the accelerator field says.
            armnn += 1
            continue
        scenario = MLPERF_SCENARIOS[r["scenario"]]
        gpus = as_int(inp, i, r, "acc_per_node")
        if gpus < 1:
            fail(inp.line(i), "field 'acc_per_node': expected a positive count")
        for col in ("p50_ns", "p90_ns", "p99_ns", "mean_ns"):
            ns_to_ms_text(inp, i, r, col)  # asserts an integer ns count
        if r["samples_per_s"]:
            positive_float_str(inp, i, r, "samples_per_s")
        if r["avg_power_W"]:
            positive_float_str(inp, i, r, "avg_power_W")
        out.append({
            "mlperf_version": r["round"], "division": r["division"],
            "submitter": r["submitter"], "system_id": r["system_id"],
            "accelerator": r["accelerator"],
            "gpu": MLPERF_GPUS_BY_ROUND.get((r["accelerator"], r["round"]),
                                            MLPERF_GPUS[r["accelerator"]]),
            "num_gpus": r["acc_per_node"], "network": r["benchmark"],
            "zoo_network": MLPERF_ZOO.get(r["benchmark"], ""), "scenario": scenario,
            "runtime": runtime, "precision": NOT_RECORDED,
            "latency_ms": ns_to_ms_text(inp, i, r, "p90_ns")
                          if scenario == "SingleStream" else "",
            "samples_per_s": r["samples_per_s"], "latency_p50_ns": r["p50_ns"],
            "latency_p90_ns": r["p90_ns"], "latency_p99_ns": r["p99_ns"],
            "latency_mean_ns": r["mean_ns"], "samples_per_query": r["samples_per_query"],
            "system_power_w": r["avg_power_W"], "n_power_samples": r["n_power_samples"],
            "source": "mlperf-inference", "framework": r["framework"],
            "timing_method": "mlperf-loadgen",
            "source_file": "inference_results_%s/%s" % (r["round"], r["path"])})
    stats["mlperf_left_out_armnn_rows"] = armnn
    stats["mlperf_rows_by_runtime"] = count_by(out, "runtime")
    stats["mlperf_rows_by_scenario"] = count_by(out, "scenario")
    columns = ["mlperf_version", "division", "submitter", "system_id", "accelerator", "gpu",
               "num_gpus", "network", "zoo_network", "scenario", "runtime", "precision",
               "latency_ms", "samples_per_s", "latency_p50_ns", "latency_p90_ns",
               "latency_p99_ns", "latency_mean_ns", "samples_per_query", "system_power_w",
               "n_power_samples", "source", "framework", "timing_method", "source_file"]
    return columns, out, [inp], ["mlperf-inference"]


# ---------------------------------------------------------------- Zeus
def build_zeus(data_dir, stats):
    inp = Input(data_dir, "zeus-power/power_per_epoch.csv",
                ["gpu", "dataset", "network", "batch_size", "optimizer", "power_limit_w",
                 "time_per_epoch_s", "avg_power_w", "energy_per_epoch_j"])
    out = []
    for i, r in enumerate(inp.rows):
        out.append({
            "gpu": r["gpu"], "dataset": r["dataset"], "network": r["network"],
            "batch": r["batch_size"], "optimizer": r["optimizer"],
            "power_limit_w": r["power_limit_w"],
            "time_per_epoch_s": positive_float_str(inp, i, r, "time_per_epoch_s"),
            "avg_power_w": positive_float_str(inp, i, r, "avg_power_w"),
            "energy_per_epoch_j": r["energy_per_epoch_j"], "mode": "training",
            "source": "zeus", "framework": NOT_RECORDED, "library_versions": NOT_RECORDED,
            "timing_method": "wallclock-per-training-epoch;nvml-average-power"})
    columns = ["gpu", "dataset", "network", "batch", "optimizer", "power_limit_w",
               "time_per_epoch_s", "avg_power_w", "energy_per_epoch_j", "mode", "source",
               "framework", "library_versions", "timing_method"]
    return columns, out, [inp], ["zeus"]


# ---------------------------------------------------------------- HELP
def build_help(data_dir, stats):
    fb_arch = Input(data_dir, "help-nas-latency/fbnet_archs.csv",
                    ["arch_index", "op_idx_list", "op_names"])
    fb_lat = Input(data_dir, "help-nas-latency/fbnet_latency_long.csv",
                   ["arch_index", "gpu", "batch_size", "latency_ms"])
    nb_arch = Input(data_dir, "help-nas-latency/nasbench201_archs.csv",
                    ["arch_index", "nb201_arch_str"])
    nb_lat = Input(data_dir, "help-nas-latency/nasbench201_latency_long.csv",
                   ["arch_index", "gpu", "batch_size", "latency_ms"])
    out = []
    # FBNet space is CIFAR-100 (32x32) per metainfo.pt; the NB-201 resolution is not recorded.
    for space, arch_in, arch_col, lat_in, hw in (
            ("fbnet", fb_arch, "op_names", fb_lat, "32"),
            ("nasbench201", nb_arch, "nb201_arch_str", nb_lat, "")):
        archs = {r["arch_index"]: r[arch_col] for r in arch_in.rows}
        for i, r in enumerate(lat_in.rows):
            if r["arch_index"] not in archs:
                fail(lat_in.line(i), "arch_index %s not in %s" % (r["arch_index"], arch_in.rel))
            require(lat_in, i, r, "gpu", set(HELP_GPU_NAMES))
            out.append({
                "space": space, "arch_index": r["arch_index"], "arch": archs[r["arch_index"]],
                "gpu": r["gpu"], "gpu_name": HELP_GPU_NAMES[r["gpu"]],
                "batch": r["batch_size"], "mode": "inference",
                "latency_ms": positive_float_str(lat_in, i, r, "latency_ms"),
                "input_h": hw, "input_w": hw, "source": "help", "framework": "pytorch",
                "library_versions": NOT_RECORDED, "timing_method": NOT_RECORDED})
    columns = ["space", "arch_index", "arch", "gpu", "gpu_name", "batch", "mode",
               "latency_ms", "input_h", "input_w", "source", "framework",
               "library_versions", "timing_method"]
    return columns, out, [fb_arch, fb_lat, nb_arch, nb_lat], ["help"]


OUTPUTS = [
    ("layers_neusight.csv.gz", build_neusight),
    ("layers_neusight_test.csv.gz", build_neusight_test),
    ("layers_mlpredict.csv.gz", build_mlpredict),
    ("e2e_torchvision.csv", build_torchvision),
    ("power_zeus.csv", build_zeus),
    ("e2e_help_nas.csv.gz", build_help),
    ("e2e_timm.csv.gz", build_timm),
    ("e2e_mlperf_inference.csv.gz", build_mlperf),
]

# MANIFEST's rows_per_gpu counts `gpu` except where another column names every row's GPU.
ROWS_PER_GPU_KEY = {"e2e_mlperf_inference.csv.gz": "accelerator"}


def column_docs(columns, source):
    docs = []
    for c in columns:
        unit, desc = COLUMN_DOC_BY_SOURCE.get((source, c), COLUMN_DOC.get(c, ("", "")))
        if source == "zeus" and c == "optimizer":
            desc = "training optimizer (adadelta, adam, adamw)"
        docs.append({"name": c, "unit": unit, "description": desc})
    return docs


def build_all(data_dir):
    """Returns ({file name: bytes}, manifest dict, stats dict)."""
    files = {}
    stats = {}
    manifest = {"schema_version": SCHEMA_VERSION,
                "generator": "tools/build_datasets.py",
                "note": "Real measurements converted by a mechanical column mapping; "
                        "see datasets/README.md. sha256 is of the file as written, "
                        "sha256_uncompressed of its CSV text.",
                "files": {}}
    for name, builder in OUTPUTS:
        columns, rows, inputs, source_keys = builder(data_dir, stats)
        for c in columns:
            if c not in COLUMN_DOC:
                raise AssertionError("column %s has no documentation" % c)
        raw = csv_bytes(columns, rows)
        data = gzip_bytes(raw) if name.endswith(".gz") else raw
        files[name] = data
        manifest["files"][name] = {
            "rows": len(rows),
            "rows_per_gpu": count_by(rows, ROWS_PER_GPU_KEY.get(name, "gpu")),
            "bytes": len(data),
            "sha256": sha256_bytes(data),
            "sha256_uncompressed": sha256_bytes(raw),
            "sources": [dict(SOURCES[k], name=k) for k in source_keys],
            "inputs": [inp.manifest() for inp in inputs],
            "columns": column_docs(columns, source_keys[0]),
        }
    manifest["conversion_stats"] = stats
    manifest_bytes = (json.dumps(manifest, indent=2, ensure_ascii=False) + "\n").encode("utf-8")
    files["MANIFEST.json"] = manifest_bytes
    return files, manifest, stats


def write_atomic(path, data):
    tmp = path + ".tmp"
    with open(tmp, "wb") as f:
        f.write(data)
    os.replace(tmp, path)


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("data_dir", nargs="?", default=DEFAULT_DATA_DIR,
                    help="shared data folder (default: %(default)s)")
    ap.add_argument("--out", default=DEFAULT_OUT_DIR, help="output folder (default: %(default)s)")
    ap.add_argument("--quiet", action="store_true", help="print nothing on success")
    args = ap.parse_args(argv)
    try:
        files, manifest, stats = build_all(args.data_dir)
    except DataError as e:
        print("build_datasets: %s" % e, file=sys.stderr)
        return 2
    os.makedirs(args.out, exist_ok=True)
    for name, data in files.items():
        write_atomic(os.path.join(args.out, name), data)
    if args.quiet:
        return 0
    for name, entry in manifest["files"].items():
        print("%-26s %8d rows %10d bytes  %s" % (name, entry["rows"], entry["bytes"],
              ", ".join("%s %d" % kv for kv in entry["rows_per_gpu"].items())),
              file=sys.stderr)
    print("conversion: %s" % json.dumps(stats, sort_keys=True), file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
