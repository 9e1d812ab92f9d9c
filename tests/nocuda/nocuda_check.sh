#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# What a machine without the CUDA toolkit gets (the brief: the project builds without it).
#   nocuda_check.sh binary BIN        BIN (the CLI over the stub back end) starts, predicts,
#                                     and says why profile is unavailable, exit 1
#   nocuda_check.sh configure CMAKE SRC WORK GENERATOR
#                                     configuring SRC with the toolkit hidden leaves the back
#                                     end out; CNNPERF_WITH_CUDA=ON then stops with a reason
set -u
fail() { echo "nocuda_check: $*" >&2; exit 1; }

case "${1:-}" in
binary)
  bin=$2
  out=$("$bin" profile --net resnet18 2>&1)
  rc=$?
  [[ $rc -eq 1 ]] || fail "profile exited $rc, expected 1; it said: $out"
  [[ $out == *"no usable GPU: built without CUDA"* ]] || fail "profile said: $out"
  "$bin" profile --net resnet18 --dry-run > /dev/null || fail "profile --dry-run failed"
  json=$("$bin" predict --net resnet18 --gpu t4 --format json) || fail "predict failed"
  [[ $json == *'"latency_ms"'* ]] || fail "predict printed no latency_ms"
  echo "nocuda_check: the binary without CUDA predicts and says why profile is unavailable"
  ;;
configure)
  cmake_bin=$2 src=$3 work=$4 generator=$5
  common=(-S "$src" -G "$generator" -DCMAKE_DISABLE_FIND_PACKAGE_CUDAToolkit=ON
          -DCNNPERF_BUILD_TESTS=OFF -DCNNPERF_BUILD_BENCH=OFF)
  rm -rf "$work"
  log=$("$cmake_bin" "${common[@]}" -B "$work/auto" 2>&1) || fail "configure failed: $log"
  [[ $log == *"CUDA back end OFF"* ]] || fail "configure did not report the back end off: $log"
  if log=$("$cmake_bin" "${common[@]}" -B "$work/on" -DCNNPERF_WITH_CUDA=ON 2>&1); then
    fail "CNNPERF_WITH_CUDA=ON configured without the toolkit"
  fi
  [[ $log == *"CNNPERF_WITH_CUDA=ON but the CUDA toolkit"* ]] || fail "ON failed without its reason: $log"
  rm -rf "$work"
  echo "nocuda_check: configuring without the toolkit leaves the back end out (ON stops with a reason)"
  ;;
*) fail "usage: nocuda_check.sh binary BIN | configure CMAKE SRC WORK GENERATOR" ;;
esac
