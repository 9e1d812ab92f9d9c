#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# The unit tests of every parser (test_common: CSV, JSON and compressed input; test_model: layer
# CSV, JSON layer lists, ONNX, GPU specs; test_report: every JSON file `report` reads), built on
# the fuzz build's libraries (ASan and UBSan on the whole library, tests/fuzz/run_fuzz.sh) and
# run under both sanitizers: the part of `make test-sanitize` that `make test` (CI) can afford.
#   tests/fuzz/run_sanitized_tests.sh    build (in $FUZZ_BUILD_DIR, default build-fuzz) and run
# Environment: JOBS (build parallelism). Exits 1 when a test fails or a sanitizer reports.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
root="$(cd "$here/../.." && pwd)"
out="${FUZZ_BUILD_DIR:-$root/build-fuzz}"
jobs="${JOBS:-$(nproc)}"
tests="test_common test_model test_report"
if [[ ! -f "$out/CMakeCache.txt" ]]; then
  echo "sanitized tests: $out is not configured; run tests/fuzz/run_fuzz.sh first" >&2
  exit 2
fi
# A fuzz folder configured before the tests were part of it.
if ! grep -q '^CNNPERF_BUILD_TESTS:BOOL=ON' "$out/CMakeCache.txt"; then
  cmake -DCNNPERF_BUILD_TESTS=ON "$out" >"$out/configure-tests.log"
fi
# The ONNX tests load the importer module from the build tree.
# shellcheck disable=SC2086
cmake --build "$out" -j "$jobs" --target $tests cnnperf_onnx
export ASAN_OPTIONS="${ASAN_OPTIONS:-detect_leaks=1}"
export UBSAN_OPTIONS="${UBSAN_OPTIONS:-halt_on_error=1:print_stacktrace=1}"
export CNNPERF_DATA_DIR="$root"
mkdir -p "$out/logs"
status=0
for name in $tests; do
  log="$out/logs/$name.sanitized.log"
  rc=0
  (cd "$root" && "$out/tests/$name" --gtest_brief=1) >"$log" 2>&1 || rc=$?
  summary="$(grep -E '^\[  PASSED  \]|^\[  FAILED  \]' "$log" | tr '\n' ' ' || true)"
  if ((rc != 0)) || grep -q '^==[0-9]*==ERROR\|^SUMMARY: .*Sanitizer\|runtime error:' "$log"; then
    echo "sanitized tests: $name: FAILED (exit $rc) ${summary}- see $log"
    grep -m5 'ERROR\|SUMMARY\|runtime error\|FAILED' "$log" || true
    status=1
  else
    echo "sanitized tests: $name: ${summary:-passed} no sanitizer report"
  fi
done
exit "$status"
