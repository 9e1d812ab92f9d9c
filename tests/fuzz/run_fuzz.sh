#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Builds the PTX parser fuzzer with clang++ (-fsanitize=fuzzer,address,undefined) and runs it.
#   tests/fuzz/run_fuzz.sh [SECONDS]   fuzz for SECONDS (default 600); new interesting inputs
#                                      are added to tests/fuzz/corpus/
#   tests/fuzz/run_fuzz.sh merge       minimize the corpus: keep the smallest set of inputs that
#                                      covers what the whole corpus covers (libFuzzer -merge=1)
# Not part of the default CMake build.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
root="$(cd "$here/../.." && pwd)"
mode="fuzz"
secs="${1:-600}"
if [[ "$secs" == "merge" ]]; then
  mode="merge"
fi
out="${FUZZ_BUILD_DIR:-$root/build-fuzz}"
mkdir -p "$out" "$here/corpus"
if [[ -z "$(ls -A "$here/corpus")" ]]; then
  # Seed with the small committed PTX files.
  for f in "$root"/models/ptx/{pool,elementwise,conv_direct,depthwise,im2col}.sm_80.ptx "$root"/tests/data/ptx/*.ptx; do
    cp "$f" "$here/corpus/seed_$(basename "$f")"
  done
fi
mkdir -p "$out/generated/cnnperf/common"
sed -e 's/@PROJECT_VERSION@/0/' -e 's/#cmakedefine01 CNNPERF_HAVE_CUDA/#define CNNPERF_HAVE_CUDA 0/' \
    -e "s|@CMAKE_SOURCE_DIR@|$root|" "$root/include/cnnperf/common/config.hpp.in" > "$out/generated/cnnperf/common/config.hpp"
clang++ -std=c++20 -O1 -g -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=undefined \
  -I"$root/include" -I"$out/generated" \
  "$here/ptx_parser_fuzz.cpp" "$root/src/ptx/parser.cpp" "$root/src/ptx/program.cpp" \
  "$root/src/ptx/exec.cpp" \
  -o "$out/ptx_parser_fuzz"
cd "$out"
if [[ "$mode" == "merge" ]]; then
  # Merge into an empty folder, then swap it in, so an interrupted merge leaves the corpus whole.
  merged="$out/corpus.merged"
  rm -rf "$merged"
  mkdir -p "$merged"
  before="$(ls -A "$here/corpus" | wc -l)"
  "$out/ptx_parser_fuzz" -merge=1 "$merged" "$here/corpus" -max_len=65536 -timeout=10 -rss_limit_mb=2048 \
    >"$out/merge.log" 2>&1 || { echo "fuzz: merge failed (see $out/merge.log)"; exit 1; }
  rm -rf "$here/corpus"
  mv "$merged" "$here/corpus"
  echo "fuzz: corpus merged from $before to $(ls -A "$here/corpus" | wc -l) files"
  exit 0
fi
"$out/ptx_parser_fuzz" "$here/corpus" -max_total_time="$secs" -max_len=65536 -timeout=10 -rss_limit_mb=2048 \
  -print_final_stats=1 2>&1 | tee "$out/fuzz.log" | grep -E "^#[0-9]+ *(DONE|pulse)|ERROR|SUMMARY|stat::" || true
grep -q "ERROR: " "$out/fuzz.log" && { echo "fuzz: crash found (see $out/fuzz.log)"; exit 1; }
echo "fuzz: no crash in ${secs}s"
