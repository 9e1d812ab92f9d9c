#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Checks tools/torch_export.py against the built-in zoo, where python3-torch is installed.

Every zoo network torchvision has (or those given with --models), traced from torchvision's
own code and read back by cnnperf, must give exactly the zoo's layer count per op class, total
parameters and total multiply-accumulates at the zoo's input size, and predict. Also checks
the FILE.py:FUNCTION form, the .json output and the exit-2 errors.

  torch_zoo_check.py --cnnperf build/cnnperf --models resnet18,efficientnet_b0
  torch_zoo_check.py --cnnperf build/cnnperf --all

Exit 0 pass, 1 fail, 77 skipped (no python3 with torch, torchvision and onnx).
"""

import argparse
import collections
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

SKIP = 77
ROOT = Path(__file__).resolve().parents[2]
EXPORTER = ROOT / "tools" / "torch_export.py"
HERE = Path(__file__).resolve().parent
# Rows that launch no kernel, whose number depends on how a graph spells them rather than on
# the network: dropout is identity in eval mode (torch.onnx writes no node, the zoo keeps a
# zero-cost row per nn.Dropout); flatten is a view (every Reshape of a trace is one, e.g.
# ShuffleNet's two per channel shuffle, which the zoo's channel_shuffle row stands for).
# Their counts are printed, not compared; every other op class must match exactly.
VIEW_OPS = {"dropout", "flatten"}


def torch_python():
    """The first interpreter that imports torch, torchvision and onnx (pyenv's python3 may
    shadow Debian's, which has the python3-torch package)."""
    for candidate in (sys.executable, "/usr/bin/python3"):
        if not os.path.exists(candidate):
            continue
        ok = subprocess.run([candidate, "-c", "import torch, torchvision, onnx"],
                            capture_output=True, check=False)
        if ok.returncode == 0:
            return candidate
    return None


def run(cmd, **kw):
    return subprocess.run([str(c) for c in cmd], capture_output=True, text=True, check=False, **kw)


def nets_show(cnnperf, spec, extra=()):
    proc = run([cnnperf, "nets", "show", spec, "--format", "json", *extra])
    if proc.returncode != 0:
        raise RuntimeError(f"nets show {spec}: exit {proc.returncode}: {proc.stderr.strip()}")
    return json.loads(proc.stdout)


def summary(net):
    ops = collections.Counter(layer["op"] for layer in net["layers"])
    return ops, net["total"]["params"], net["total"]["macs"]


def compare(name, zoo, exported):
    """Differences between the zoo and the export, one line each (empty: identical)."""
    zoo_ops, zoo_params, zoo_macs = summary(zoo)
    ex_ops, ex_params, ex_macs = summary(exported)
    diffs = []
    for op in sorted(set(zoo_ops) | set(ex_ops)):
        if op in VIEW_OPS:
            continue
        if zoo_ops[op] != ex_ops[op]:
            diffs.append(f"{op} layers: zoo {zoo_ops[op]}, torchvision {ex_ops[op]}")
    if zoo_params != ex_params:
        diffs.append(f"params: zoo {zoo_params}, torchvision {ex_params}")
    if zoo_macs != ex_macs:
        diffs.append(f"macs: zoo {zoo_macs}, torchvision {ex_macs}")
    if diffs:
        diffs.append(first_layer_difference(zoo, exported))
    return [f"{name}: {d}" for d in diffs]


def first_layer_difference(zoo, exported):
    """Where the two layer sequences part (without dropout rows), to find the zoo's error."""
    keys = ("op", "c_in", "h_in", "w_in", "c_out", "kernel_h", "stride_h", "groups", "params")
    a = [tuple(l[k] for k in keys) for l in zoo["layers"] if l["op"] not in VIEW_OPS]
    b = [tuple(l[k] for k in keys) for l in exported["layers"] if l["op"] not in VIEW_OPS]
    for i, (x, y) in enumerate(zip(a, b)):
        if x != y:
            return f"first differing layer #{i}: zoo {dict(zip(keys, x))} vs torchvision {dict(zip(keys, y))}"
    return f"layer sequences agree over {min(len(a), len(b))} layers; lengths {len(a)} vs {len(b)}"


def check_errors(py, cnnperf, tmp):
    """Bad input: one line on stderr, exit 2."""
    failures = []
    cases = [
        (["resnet5O", "-o", tmp / "x.onnx"], "not a torchvision"),
        (["resnet18", "--input-shape", "1,3,224", "-o", tmp / "x.onnx"], "--input-shape"),
        (["resnet18", "--input-shape", "1,3,0,224", "-o", tmp / "x.onnx"], "--input-shape"),
        ([f"{HERE / 'tiny_factory.py'}:no_such_factory", "--input-shape", "1,3,32,32", "-o",
          tmp / "x.onnx"], "no function 'no_such_factory'"),
        ([f"{HERE / 'tiny_factory.py'}:tiny_cnn", "-o", tmp / "x.onnx"], "needs --input-shape"),
        ([f"{tmp / 'missing.py'}:f", "--input-shape", "1,3,32,32", "-o", tmp / "x.onnx"],
         "no such file"),
        ([f"{HERE / 'tiny_factory.py'}:tiny_cnn", "--input-shape", "1,5,32,32", "-o",
          tmp / "x.onnx"], "tracing at input shape 1,5,32,32 failed"),
        (["resnet18", "-o", tmp / "x.txt"], "expected an output ending in .onnx or .json"),
        (["resnet18", "-o", tmp / "no_dir" / "x.onnx"], "no such directory"),
    ]
    for args, expected in cases:
        proc = run([py, EXPORTER, *args])
        lines = proc.stderr.strip().splitlines()
        if proc.returncode != 2 or len(lines) != 1 or expected not in lines[0]:
            failures.append(f"errors: {' '.join(map(str, args))}: exit {proc.returncode}, "
                            f"stderr {proc.stderr.strip()!r}, expected exit 2 and one line "
                            f"with {expected!r}")
    if (tmp / "x.onnx").exists():
        failures.append("errors: a failed export left its output behind")
    return failures


def check_factory(py, cnnperf, tmp):
    """FILE.py:FUNCTION with --input-shape, to both outputs; params as torch counts them."""
    failures = []
    spec = f"{HERE / 'tiny_factory.py'}:tiny_cnn"
    count = run([py, "-c", "import sys; sys.path.insert(0, sys.argv[1]); import tiny_factory; "
                 "print(sum(p.numel() for p in tiny_factory.tiny_cnn().parameters()))", HERE])
    torch_params = int(count.stdout)
    nets = {}
    for suffix in (".onnx", ".json"):
        out = tmp / f"tiny{suffix}"
        proc = run([py, EXPORTER, spec, "--input-shape", "2,3,32,32", "-o", out, "--cnnperf",
                    cnnperf])
        if proc.returncode != 0:
            failures.append(f"factory {suffix}: exit {proc.returncode}: {proc.stderr.strip()}")
            continue
        nets[suffix] = nets_show(cnnperf, out)
    for suffix, net in nets.items():
        ops, params, _ = summary(net)
        expected = {"conv2d": 2, "batchnorm": 2, "relu": 3, "add": 1, "maxpool": 1,
                    "global_avgpool": 1, "flatten": 1, "linear": 1}
        if dict(ops) != expected:
            failures.append(f"factory {suffix}: ops {dict(ops)}, expected {expected}")
        if params != torch_params:
            failures.append(f"factory {suffix}: params {params}, torch counts {torch_params}")
        if net["layers"][0]["batch"] != 2:
            failures.append(f"factory {suffix}: batch {net['layers'][0]['batch']}, expected 2")
    if len(nets) == 2 and summary(nets[".onnx"]) != summary(nets[".json"]):
        failures.append("factory: the .json and .onnx outputs give different layers")
    return failures


def check_zoo(py, cnnperf, tmp, names):
    failures = []
    for name in names:
        zoo = nets_show(cnnperf, name)
        shape = f"1,3,{zoo['input']['h']},{zoo['input']['w']}"
        out = tmp / f"{name}.onnx"
        start = time.monotonic()
        proc = run([py, EXPORTER, name, "--input-shape", shape, "-o", out])
        seconds = time.monotonic() - start
        if proc.returncode != 0:
            failures.append(f"{name}: export exit {proc.returncode}: {proc.stderr.strip()}")
            continue
        try:
            exported = nets_show(cnnperf, out)
        except RuntimeError as e:
            failures.append(f"{name}: {e}")
            print(f"FAIL {name}: {e}", flush=True)
            continue
        diffs = compare(name, zoo, exported)
        predicted = run([cnnperf, "predict", "--net", out, "--gpu", "a100", "--format", "json"])
        if predicted.returncode != 0 or "latency_ms" not in predicted.stdout:
            diffs.append(f"{name}: predict --net {out.name}: exit {predicted.returncode}: "
                         f"{predicted.stderr.strip()}")
        out.unlink()
        ops, params, macs = summary(exported)
        zoo_ops = summary(zoo)[0]
        views = " ".join(f"{op} {zoo_ops[op]}/{ops[op]}" for op in sorted(VIEW_OPS))
        print(f"{'FAIL' if diffs else 'ok  '} {name:20s} {sum(ops.values()):4d} layers "
              f"{params:10d} params {macs:12d} macs; zoo/export {views}; export {seconds:5.1f} s",
              flush=True)
        failures += diffs
    return failures


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cnnperf", required=True)
    group = parser.add_mutually_exclusive_group(required=True)
    group.add_argument("--models", help="comma-separated zoo names")
    group.add_argument("--all", action="store_true", help="every zoo network torchvision has")
    parser.add_argument("--zoo-only", action="store_true",
                        help="compare the networks only (not the errors and FILE.py:FUNCTION)")
    args = parser.parse_args()
    py = torch_python()
    if py is None:
        print("skipped: python3-torch not installed (no python3 imports torch, torchvision "
              "and onnx; Debian: apt-get install python3-torch python3-torchvision python3-onnx)")
        return SKIP
    cnnperf = os.path.abspath(args.cnnperf)
    zoo_names = [row["name"] for row in json.loads(run([cnnperf, "nets", "--format", "json"]).stdout)["networks"]]
    tv = run([py, "-c", "import json, torchvision.models as m; print(json.dumps(m.list_models()))"])
    tv_names = set(json.loads(tv.stdout))
    if args.all:
        names = [n for n in zoo_names if n in tv_names]
        print(f"zoo networks in torchvision: {len(names)} of {len(zoo_names)}; not in "
              f"torchvision: {', '.join(n for n in zoo_names if n not in tv_names)}")
    else:
        names = args.models.split(",")
        unknown = [n for n in names if n not in zoo_names or n not in tv_names]
        if unknown:
            print(f"not both a zoo and a torchvision name: {', '.join(unknown)}")
            return 1
    with tempfile.TemporaryDirectory(prefix="torch_zoo_check.") as tmp_text:
        tmp = Path(tmp_text)
        failures = []
        if not args.zoo_only:
            failures += check_errors(py, cnnperf, tmp) + check_factory(py, cnnperf, tmp)
        failures += check_zoo(py, cnnperf, tmp, names)
    for f in failures:
        print(f"FAIL {f}")
    print(f"{len(names)} networks compared, {len(failures)} failures")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
