#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Count how many ONNX test models `cnnperf predict` predicts and why the others are refused.

Usage:  python3 tools/onnx_coverage.py [--cnnperf build/cnnperf] [--data DIR] [--suite node]
                                       [--gpu a100] [--top 20] [--jobs 2] [--list]
                                       [--expect N]

Runs `cnnperf predict --net DIR/SUITE/*/model.onnx --gpu GPU` on every model of the suite
(Debian's libonnx-testdata: the ONNX project's backend test models) and prints the number
that predict (exit 0), the number refused, and the most frequent reasons, each reason being
the error line with the file and node names taken out ("Op: reason"). --list prints every
model with its outcome. --expect N fails unless exactly N predict (ctest onnx_coverage_node
keeps docs/model-import.md's count true).

Exit codes: 0 counted (and as expected); 1 not the --expect count; 2 bad input (no cnnperf binary, no models); 77 DIR is absent (skip;
CTest's SKIP_RETURN_CODE convention).
"""

import argparse
import collections
import concurrent.futures
import glob
import os
import re
import subprocess
import sys

EXIT_SKIP = 77
DEFAULT_DATA = "/usr/share/libonnx-testdata/data"
NODE_REASON = re.compile(r"\(op_type ([^)]+)\): (.*)")


def reason_of(stderr, path):
    """The first error line, as 'Op: reason' without the file and node names."""
    lines = [line for line in stderr.splitlines() if line.strip()]
    if not lines:
        return "no message"
    line = next((line for line in lines if "error" in line.lower()), lines[0])
    line = line.replace(path, "FILE")
    match = NODE_REASON.search(line)
    if match:
        op, why = match.groups()
        why = why.split(" (expected one of")[0]
        why = re.sub(r"'[^']*'", "'...'", why)
        why = re.sub(r"\[[0-9,]*\]", "[...]", why)
        return f"{op}: {why}"
    line = re.sub(r"^.*?FILE: ", "", line)
    line = re.sub(r"'[^']*'", "'...'", line)
    return line


def run_one(cnnperf, path, gpu):
    proc = subprocess.run([cnnperf, "predict", "--net", path, "--gpu", gpu],
                          capture_output=True, text=True, errors="replace", timeout=120,
                          check=False)
    if proc.returncode == 0:
        return path, True, ""
    return path, False, reason_of(proc.stderr, path)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cnnperf", default="build/cnnperf")
    parser.add_argument("--data", default=DEFAULT_DATA)
    parser.add_argument("--suite", default="node")
    parser.add_argument("--gpu", default="a100")
    parser.add_argument("--top", type=int, default=20)
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--list", action="store_true")
    parser.add_argument("--expect", type=int, help="fail unless exactly this many predict")
    args = parser.parse_args()

    if not os.path.isdir(args.data):
        print(f"skipped: {args.data} is absent (Debian package libonnx-testdata)")
        return EXIT_SKIP
    if not os.access(args.cnnperf, os.X_OK):
        print(f"{args.cnnperf}: no such executable; expected the cnnperf binary (--cnnperf)",
              file=sys.stderr)
        return 2
    models = sorted(glob.glob(os.path.join(args.data, args.suite, "*", "model.onnx")))
    if not models:
        print(f"{args.data}/{args.suite}: no */model.onnx; expected an ONNX test suite",
              file=sys.stderr)
        return 2

    with concurrent.futures.ThreadPoolExecutor(max_workers=max(1, args.jobs)) as pool:
        results = list(pool.map(lambda p: run_one(args.cnnperf, p, args.gpu), models))

    reasons = collections.Counter(reason for _, ok, reason in results if not ok)
    predicted = sum(1 for _, ok, _ in results if ok)
    if args.list:
        for path, ok, reason in results:
            name = os.path.basename(os.path.dirname(path))
            print(f"{name}\t{'predicts' if ok else 'refused'}\t{reason}")
    print(f"{args.suite}: {len(results)} models, {predicted} predict, "
          f"{len(results) - predicted} refused")
    if args.top > 0:
        print(f"top {args.top} reasons for refusal:")
        for reason, count in reasons.most_common(args.top):
            print(f"{count:5d}  {reason}")
    if args.expect is not None and predicted != args.expect:
        print(f"expected {args.expect} to predict, got {predicted}; docs/model-import.md "
              f"(Coverage) quotes the count", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
