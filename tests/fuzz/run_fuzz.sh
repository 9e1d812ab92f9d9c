#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Builds the libFuzzer targets (clang++, CNNPERF_FUZZ=ON: ASan and UBSan on the whole library)
# in $FUZZ_BUILD_DIR (default build-fuzz) and runs each from its corpus, tests/fuzz/corpus/NAME/.
#   tests/fuzz/run_fuzz.sh [SECONDS]   fuzz each target for SECONDS (default 600), one at a time
#   tests/fuzz/run_fuzz.sh merge       only minimize the committed corpora (libFuzzer -merge=1)
# Environment: FUZZ_TARGETS="layers_csv report ..." (default: all), FUZZ_MERGE=1 to merge what a
# run found back into the committed corpus (otherwise new inputs stay in the build folder),
# JOBS (build parallelism), FUZZ_BUILD=0 to run the targets as they are built,
# FUZZ_RUNS=N (FUZZ_RUNS_NAME=N for one target) and FUZZ_SEED=S for a repeatable run (the CI
# smoke run): at most N inputs per target from libFuzzer seed S, new inputs into an empty
# folder, SECONDS still the bound. Exits 1 on a
# finding; the input that caused it is kept under $FUZZ_BUILD_DIR/findings/NAME/ and the log in
# $FUZZ_BUILD_DIR/logs/NAME.log.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
root="$(cd "$here/../.." && pwd)"
all_targets="layers_csv network_json onnx_import gpu_spec model_file report ptx_parser"
targets="${FUZZ_TARGETS:-$all_targets}"
secs="${1:-600}"
mode="fuzz"
if [[ "$secs" == "merge" ]]; then
  mode="merge"
elif ! [[ "$secs" =~ ^[0-9]+$ ]] || ((secs == 0)); then
  echo "run_fuzz.sh: SECONDS must be a positive integer or 'merge', got '$secs'" >&2
  exit 2
fi
out="$(mkdir -p "${FUZZ_BUILD_DIR:-$root/build-fuzz}" && cd "${FUZZ_BUILD_DIR:-$root/build-fuzz}" && pwd)"
jobs="${JOBS:-$(nproc)}"

if [[ ! -f "$out/CMakeCache.txt" ]]; then
  launcher=()
  if command -v ccache >/dev/null; then launcher=(-DCMAKE_CXX_COMPILER_LAUNCHER=ccache); fi
  # -O1 and line tables only: a quick build, and stacks that name file and line. The tests are
  # configured (none is built here) so that run_sanitized_tests.sh builds the parsers' unit
  # tests on the same instrumented libraries.
  CC=clang CXX=clang++ cmake -S "$root" -B "$out" -DCMAKE_BUILD_TYPE=RelWithDebInfo \
    -DCMAKE_CXX_FLAGS_RELWITHDEBINFO="-O1 -gline-tables-only -DNDEBUG" \
    -DCNNPERF_FUZZ=ON -DCNNPERF_BUILD_TESTS=ON -DCNNPERF_BUILD_BENCH=OFF \
    -DCNNPERF_WITH_CUDA=OFF "${launcher[@]}" >"$out/configure.log"
fi
build_targets=()
for name in $targets; do
  [[ " $all_targets " == *" $name "* ]] || { echo "fuzz: no target '$name' (known: $all_targets)" >&2; exit 2; }
  build_targets+=("${name}_fuzz")
done
if [[ "${FUZZ_BUILD:-1}" != "0" ]]; then
  cmake --build "$out" -j "$jobs" --target "${build_targets[@]}"
fi

export ASAN_OPTIONS="${ASAN_OPTIONS:-abort_on_error=0:detect_leaks=1}"
export UBSAN_OPTIONS="${UBSAN_OPTIONS:-halt_on_error=1:print_stacktrace=1}"
# Inputs above 64 KiB only slow the search down; the seeds are smaller.
common_flags=(-max_len=65536 -timeout=10 -rss_limit_mb=2048)
if [[ -n "${FUZZ_SEED:-}" ]]; then common_flags+=(-seed="$FUZZ_SEED"); fi
status=0
for name in $targets; do
  bin="$out/tests/fuzz/${name}_fuzz"
  corpus="$here/corpus/$name"
  [[ -d "$corpus" ]] || { echo "fuzz: no corpus folder $corpus" >&2; exit 2; }
  # A repeatable run starts from the committed corpus alone; FUZZ_RUNS_NAME (e.g.
  # FUZZ_RUNS_model_file) sets one target's count.
  runs_var="FUZZ_RUNS_$name"
  runs="${!runs_var:-${FUZZ_RUNS:-}}"
  run_flags=()
  if [[ -n "$runs" ]]; then
    run_flags=(-runs="$runs")
    rm -rf "${out:?}/new/$name"
  fi
  mkdir -p "$out/logs" "$out/findings/$name" "$out/new/$name"
  log="$out/logs/$name.log"
  if [[ "$mode" == "fuzz" ]]; then
    # New inputs go to the first folder (the build folder's), so the committed corpus changes
    # only through a merge.
    rc=0
    # tests/fuzz/regressions/NAME: inputs that once found something, replayed on every run.
    extra=()
    if [[ -d "$here/regressions/$name" ]]; then extra=("$here/regressions/$name"); fi
    "$bin" "$out/new/$name" "$corpus" "${extra[@]}" -max_total_time="$secs" "${common_flags[@]}" "${run_flags[@]}" \
      -artifact_prefix="$out/findings/$name/" -print_final_stats=1 >"$log" 2>&1 || rc=$?
    execs="$(grep -o 'stat::number_of_executed_units: *[0-9]*' "$log" | grep -o '[0-9]*$' || echo ?)"
    took="$(grep -o 'Done [0-9]* runs in [0-9]* second' "$log" | grep -o 'in [0-9]*' | grep -o '[0-9]*' || echo ?)"
    if ((rc != 0)) || grep -q '^==[0-9]*==ERROR\|^SUMMARY: ' "$log"; then
      echo "fuzz: $name: FINDING (exit $rc) - see $log and $out/findings/$name/"
      grep -m3 'ERROR\|SUMMARY\|uncaught\|runtime error' "$log" || true
      status=1
      continue
    fi
    echo "fuzz: $name: no finding in ${took}s, $execs executions, corpus $(ls -A "$corpus" | wc -l) files + $(ls -A "$out/new/$name" | wc -l) new"
  fi
  if [[ "$mode" == "merge" || "${FUZZ_MERGE:-0}" == "1" ]]; then
    # Merge into an empty folder, then swap it in, so an interrupted merge leaves the corpus whole.
    merged="$out/merged/$name"
    rm -rf "$merged"
    mkdir -p "$merged"
    before="$(ls -A "$corpus" | wc -l)"
    "$bin" -merge=1 "$merged" "$corpus" "$out/new/$name" "${common_flags[@]}" \
      >"$out/logs/$name.merge.log" 2>&1 || { echo "fuzz: $name: merge failed (see $out/logs/$name.merge.log)"; exit 1; }
    rm -rf "$corpus"
    mv "$merged" "$corpus"
    rm -rf "$out/new/$name"
    echo "fuzz: $name: corpus merged from $before to $(ls -A "$corpus" | wc -l) files ($(du -sk "$corpus" | cut -f1) KiB)"
  fi
done
exit "$status"
