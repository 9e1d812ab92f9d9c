#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Check that datasets/ is exactly what tools/build_datasets.py makes from shared/data.

Usage:  python3 tools/check_datasets.py [DATA_DIR] [--datasets DIR]

1. Every file listed in datasets/MANIFEST.json exists and has the recorded sha256,
   and its CSV text has the recorded sha256_uncompressed.
2. A fresh build from DATA_DIR into a temporary folder gives the same MANIFEST.json
   and the same CSV text (sha256_uncompressed) for every file. Differing gzip bytes
   with identical CSV text (another zlib version) are reported but do not fail.

Exit codes: 0 all match; 1 a mismatch (each printed on its own line); 2 bad input;
77 DATA_DIR is absent (skip; CTest's SKIP_RETURN_CODE convention).
"""

import argparse
import gzip
import json
import os
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import build_datasets  # noqa: E402  (sibling module)

EXIT_SKIP = 77


def plain_bytes(name, data):
    return gzip.decompress(data) if name.endswith(".gz") else data


def check(data_dir, datasets_dir):
    problems = []
    manifest_path = os.path.join(datasets_dir, "MANIFEST.json")
    try:
        with open(manifest_path, "rb") as f:
            committed_manifest_bytes = f.read()
        committed = json.loads(committed_manifest_bytes.decode("utf-8"))
    except (OSError, ValueError) as e:
        return ["%s: cannot read manifest: %s" % (manifest_path, e)], []

    # 1. The committed files match their manifest.
    for name, entry in committed.get("files", {}).items():
        path = os.path.join(datasets_dir, name)
        try:
            with open(path, "rb") as f:
                data = f.read()
        except OSError as e:
            problems.append("%s: missing: %s" % (path, e))
            continue
        if build_datasets.sha256_bytes(data) != entry["sha256"]:
            problems.append("%s: sha256 differs from MANIFEST.json" % path)
        if build_datasets.sha256_bytes(plain_bytes(name, data)) != entry["sha256_uncompressed"]:
            problems.append("%s: CSV text sha256 differs from MANIFEST.json" % path)

    # 2. A fresh rebuild matches.
    notes = []
    with tempfile.TemporaryDirectory(prefix="cnnperf-datasets-") as tmp:
        rc = build_datasets.main([data_dir, "--out", tmp, "--quiet"])
        if rc != 0:
            return problems + ["rebuild from %s failed (exit %d)" % (data_dir, rc)], notes
        with open(os.path.join(tmp, "MANIFEST.json"), "rb") as f:
            rebuilt = json.loads(f.read().decode("utf-8"))
    names = set(committed.get("files", {})) | set(rebuilt["files"])
    for name in sorted(names):
        old = committed.get("files", {}).get(name)
        new = rebuilt["files"].get(name)
        if old is None or new is None:
            problems.append("%s: only in the %s manifest"
                            % (name, "rebuilt" if old is None else "committed"))
            continue
        if old["sha256_uncompressed"] != new["sha256_uncompressed"]:
            problems.append("%s: rebuilt CSV text differs (sha256 %s, manifest %s)"
                            % (name, new["sha256_uncompressed"], old["sha256_uncompressed"]))
        elif old["sha256"] != new["sha256"]:
            notes.append("%s: same CSV text, different gzip bytes (zlib version?)" % name)
        for key in ("rows", "rows_per_gpu", "inputs", "columns", "sources"):
            if old.get(key) != new.get(key):
                problems.append("%s: manifest field '%s' differs from the rebuild" % (name, key))
    if committed.get("conversion_stats") != rebuilt.get("conversion_stats"):
        problems.append("MANIFEST.json: conversion_stats differ from the rebuild")
    return problems, notes


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("data_dir", nargs="?", default=build_datasets.DEFAULT_DATA_DIR,
                    help="shared data folder (default: %(default)s)")
    ap.add_argument("--datasets", default=build_datasets.DEFAULT_OUT_DIR,
                    help="committed datasets folder (default: %(default)s)")
    args = ap.parse_args(argv)
    if not os.path.isdir(args.data_dir):
        print("check_datasets: skipped: data folder %s not present" % args.data_dir,
              file=sys.stderr)
        return EXIT_SKIP
    problems, notes = check(args.data_dir, args.datasets)
    for n in notes:
        print("check_datasets: note: %s" % n, file=sys.stderr)
    for p in problems:
        print("check_datasets: %s" % p, file=sys.stderr)
    if problems:
        return 1
    print("check_datasets: datasets/ matches a rebuild from %s" % args.data_dir,
          file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
