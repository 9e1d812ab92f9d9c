#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Load: `cnnperf plan` over the whole GPU database (every GPU of `cnnperf gpus`, every zoo
# network with a published top-1, batches 1, 8 and 32, fp32 and fp16), every candidate
# written as CSV; wall time, CPU time and peak memory from GNU time (docs/benchmarks.md,
# "Load: plan over the whole GPU database").
# Usage: bench/plan_load.sh [BUILD_DIR]
set -euo pipefail
repo=$(cd "$(dirname "$0")/.." && pwd)
build=$(cd "${1:-$repo/build}" && pwd)
cnnperf="$build/cnnperf"
[ -x /usr/bin/time ] || { echo "needs GNU time (Debian package time)" >&2; exit 2; }
export CNNPERF_DATA_DIR="${CNNPERF_DATA_DIR:-$repo}"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
gpus=$("$cnnperf" gpus --format csv | tail -n +2 | cut -d, -f1 | paste -sd, -)
echo "== machine: $(nproc) CPUs, load average $(cut -d' ' -f1-3 /proc/loadavg)"
echo "== $(echo "$gpus" | tr , '\n' | wc -l) GPUs"
/usr/bin/time -v "$cnnperf" plan --gpus "$gpus" --batch 1,8,32 --precision fp32,fp16 --top 0 \
  --format csv -o "$tmp/plan.csv" 2>"$tmp/time.txt" || { cat "$tmp/time.txt" >&2; exit 1; }
echo "== candidates: $(($(wc -l <"$tmp/plan.csv") - 1)) rows of CSV"
grep -E 'Elapsed \(wall|User time|System time|Maximum resident' "$tmp/time.txt"
