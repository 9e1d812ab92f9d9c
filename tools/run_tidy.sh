#!/usr/bin/env bash
# make tidy: clang-tidy (.clang-tidy) on every library and CLI source in the compile database
# (src/gpu/ only when CUDA was found), in parallel. Prints the findings; fails when there is
# one, when run-clang-tidy itself fails, or when it checked no source at all.
# Usage: tools/run_tidy.sh BUILD_DIR [JOBS]
set -euo pipefail
build=${1:?usage: tools/run_tidy.sh BUILD_DIR [JOBS]}
jobs=${2:-$(nproc)}
if [ ! -f "$build/compile_commands.json" ]; then
  echo "tidy: no $build/compile_commands.json; configure first (make configure)" >&2
  exit 1
fi
log=$build/tidy.log
status=0
# Sources are chosen by their path inside the checkout, so a checkout that itself lies under
# a folder named src/ does not pull in tests and benchmarks.
root=$(cd "$(dirname "$0")/.." && pwd)
root_re=$(printf '%s' "$root" | sed 's/[][\\.*^$+?(){}|]/\\&/g')
run-clang-tidy -p "$build" -quiet -j "$jobs" "^$root_re/(src|tools/cnnperf)/" >"$log" 2>"$build/tidy.err" ||
  status=$?
# run-clang-tidy prints one command line per source it checks; the rest is findings.
checked=$(grep -c '^clang-tidy-[0-9]* ' "$log" || true)
grep -v '^clang-tidy-[0-9]* ' "$log" || true
if [ "$status" -ne 0 ]; then
  echo "tidy: run-clang-tidy exited with $status" >&2
  tail -n 5 "$build/tidy.err" >&2
  exit 1
fi
if [ "$checked" -eq 0 ]; then
  echo "tidy: no source checked; expected $build/compile_commands.json (make configure)" >&2
  exit 1
fi
if grep -q 'warning:\|error:' "$log"; then
  echo "tidy: findings above, in $checked sources" >&2
  exit 1
fi
echo "tidy: $checked sources, clean"
