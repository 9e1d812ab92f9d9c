#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Load: `cnnperf predict --layers` on 1,000,000 rows, wall time, CPU time and peak memory
# (max RSS) from GNU time, for the analytical default and the bundled learned model, CSV and
# JSON written to a file (docs/benchmarks.md, "Load: predict --layers on 1,000,000 rows").
# The input is a synthetic load, no measurement: the 18 canonical columns (op ... pass) of
# datasets/layers_neusight.csv.gz's rows, repeated in file order up to ROWS rows.
# Usage: bench/layers_load.sh [BUILD_DIR] [OTHER_CNNPERF]
#   OTHER_CNNPERF: a second binary (another checkout's build) run on the same input in the same
#   run; each of its outputs is compared with BUILD_DIR's byte for byte.
# Env:   ROWS (default 1000000).
set -euo pipefail
repo=$(cd "$(dirname "$0")/.." && pwd)
build=$(cd "${1:-$repo/build}" && pwd)
other=${2:-}
rows=${ROWS:-1000000}
[ -x /usr/bin/time ] || { echo "needs GNU time (Debian package time)" >&2; exit 2; }
export CNNPERF_DATA_DIR="${CNNPERF_DATA_DIR:-$repo}"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# The repeating loop ends when head has read enough and closes the pipe: not a failure.
(zcat "$repo/datasets/layers_neusight.csv.gz" || true) | cut -d, -f1-18 >"$tmp/canonical.csv"
{
  head -1 "$tmp/canonical.csv"
  while tail -n +2 "$tmp/canonical.csv"; do :; done | head -n "$rows" || true
} >"$tmp/load.csv"
echo "== machine: $(nproc) CPUs, load average $(cut -d' ' -f1-3 /proc/loadavg)"
echo "== input: $(($(wc -l <"$tmp/load.csv") - 1)) rows, $(wc -c <"$tmp/load.csv") bytes"

binaries=("$build/cnnperf")
[ -n "$other" ] && binaries+=("$other")
printf '| %s | %s | %s | %s | %s | %s | %s |\n' binary model format wall "user CPU" \
  "max RSS" "output"
for model in analytical models/cnnperf_default.json; do
  for format in csv json; do
    model_args=()
    [ "$model" != analytical ] && model_args=(--model "$model")
    for i in "${!binaries[@]}"; do
      out="$tmp/out.$i.$format"
      if ! /usr/bin/time -v "${binaries[$i]}" predict --layers "$tmp/load.csv" --gpu v100 \
        "${model_args[@]}" --format "$format" -o "$out" 2>"$tmp/time.txt"; then
        cat "$tmp/time.txt" >&2
        exit 1
      fi
      wall=$(sed -n 's/.*Elapsed (wall clock) time (h:mm:ss or m:ss): //p' "$tmp/time.txt")
      user=$(sed -n 's/.*User time (seconds): //p' "$tmp/time.txt")
      rss=$(sed -n 's/.*Maximum resident set size (kbytes): //p' "$tmp/time.txt")
      same=""
      if [ "$i" -gt 0 ]; then
        cmp -s "$tmp/out.0.$format" "$out" && same=", identical" || same=", DIFFERENT"
      fi
      printf '| %s | %s | %s | %s | %s s | %s MiB | %s bytes%s |\n' "${binaries[$i]}" "$model" \
        "$format" "$wall" "$user" "$((rss / 1024))" "$(wc -c <"$out")" "$same"
    done
    rm -f "$tmp"/out.*
  done
done
echo "== load average at the end: $(cut -d' ' -f1-3 /proc/loadavg)"
