#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Runs cnnperf's speed measurements (docs/benchmarks.md quotes their output):
#   1. every Google Benchmark executable in BUILD_DIR/bench (*_bench: ptx_bench, ml_bench,
#      predict_bench, ...), JSON results in BUILD_DIR/bench-results/<name>.json;
#   2. whole-process time of `cnnperf predict --net resnet50 --gpu a100`, with the analytical
#      default and with the bundled learned model (`--model models/cnnperf_default.json`)
#      (hyperfine when installed, else the median of 20 runs timed with `date +%s%N`);
#   3. optionally (BENCH_PROCESS_LOOP=1) one process per zoo network x database GPU.
# Usage: bench/run_benchmarks.sh [BUILD_DIR]      (`make bench` passes its BUILD_DIR)
# Env:   BENCH_FILTER  regex passed as --benchmark_filter to every executable (default: all)
#        BENCH_ONLY    space-separated executable names to run (default: every *_bench)
#        BENCH_NO_HYPERFINE=1  time with the date loop even when hyperfine is installed
set -euo pipefail
repo=$(cd "$(dirname "$0")/.." && pwd)
build=$(cd "${1:-$repo/build}" && pwd)
cnnperf="$build/cnnperf"
out="$build/bench-results"
mkdir -p "$out"
# libgomp threads busy-wait by default; on a shared 2-core machine that spin time would be
# charged to whoever runs next. Passive waiting makes the timings reflect the work.
export OMP_WAIT_POLICY="${OMP_WAIT_POLICY:-PASSIVE}"
export CNNPERF_DATA_DIR="${CNNPERF_DATA_DIR:-$repo}"

echo "== machine: $(nproc) CPUs, $(uname -sr), $(date -u +%Y-%m-%dT%H:%M:%SZ)"
echo "== commit: $(git -C "$repo" rev-parse --short HEAD 2>/dev/null || echo unknown)"

# 1. Google Benchmark executables.
shopt -s nullglob
ran=0
for exe in "$build"/bench/*_bench; do
  [ -x "$exe" ] || continue
  name=$(basename "$exe")
  if [ -n "${BENCH_ONLY:-}" ] && [[ " $BENCH_ONLY " != *" $name "* ]]; then continue; fi
  echo
  echo "== $name"
  args=(--benchmark_out="$out/$name.json" --benchmark_out_format=json)
  [ -n "${BENCH_FILTER:-}" ] && args+=(--benchmark_filter="$BENCH_FILTER")
  "$exe" "${args[@]}"
  ran=$((ran + 1))
done
if [ "$ran" -eq 0 ] && [ -z "${BENCH_ONLY:-}" ]; then
  echo "no *_bench executables in $build/bench (Google Benchmark missing?)"
fi

# 2. Whole-process time of the demo command (requirement: under 50 ms).
if [ ! -x "$cnnperf" ]; then
  echo "no $cnnperf; skipping whole-process timings" >&2
  exit 0
fi
# Both under 50 ms: the analytical default and the learned model (13.5 MB of JSON to load).
time_process() {  # time_process LABEL RESULT_NAME ARGS...
  local label=$1 result=$2
  shift 2
  local cmd=("$cnnperf" "$@")
  echo
  echo "== whole process: $label"
  if [ -z "${BENCH_NO_HYPERFINE:-}" ] && command -v hyperfine >/dev/null 2>&1; then
    hyperfine --warmup 3 --runs 20 -N --export-json "$out/$result.json" "${cmd[*]}"
  else
    local times=()
    for _ in 1 2 3; do "${cmd[@]}" >/dev/null 2>&1; done
    for _ in $(seq 20); do
      t0=$(date +%s%N)
      "${cmd[@]}" >/dev/null 2>&1
      t1=$(date +%s%N)
      times+=($(( (t1 - t0) / 1000 )))
    done
    median_us=$(printf '%s\n' "${times[@]}" | sort -n | sed -n '10p;11p' |
                awk '{s += $1} END {printf "%.0f", s / NR}')
    echo "median of 20 runs: $((median_us / 1000)).$(printf '%03d' $((median_us % 1000))) ms"
  fi
}
time_process "cnnperf predict --net resnet50 --gpu a100" predict_resnet50_a100 \
  predict --net resnet50 --gpu a100
time_process "cnnperf predict --net resnet50 --gpu a100 --model models/cnnperf_default.json" \
  predict_resnet50_a100_learned \
  predict --net resnet50 --gpu a100 --model "$repo/models/cnnperf_default.json"

# 3. Optional: every zoo network on every database GPU, one process each.
if [ "${BENCH_PROCESS_LOOP:-0}" = 1 ]; then
  mapfile -t nets < <("$cnnperf" nets --format csv | tail -n +2 | cut -d, -f1)
  mapfile -t gpus < <("$cnnperf" gpus --format csv | tail -n +2 | cut -d, -f1)
  echo
  echo "== ${#nets[@]} zoo networks x ${#gpus[@]} GPUs, one cnnperf process each"
  t0=$(date +%s%N)
  for n in "${nets[@]}"; do
    for g in "${gpus[@]}"; do
      "$cnnperf" predict --net "$n" --gpu "$g" --format csv >/dev/null
    done
  done
  t1=$(date +%s%N)
  echo "total: $(( (t1 - t0) / 1000000 )) ms"
fi
