#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Whole-process time of `cnnperf train` under each OpenMP wait policy (docs/benchmarks.md,
# "train: OpenMP threads"): the binary's default, the policy it sets itself exported by hand
# (OMP_WAIT_POLICY=PASSIVE), and libgomp's own default spin (GOMP_SPINCOUNT=300000, what a
# process gets when nothing sets a policy). hyperfine prints each mean and the ratios.
# Usage: bench/train_openmp.sh [BUILD_DIR] [small|large|others|all]
#   small:  40 rows of datasets/layers_neusight.csv.gz, default k-fold cross-validation;
#   large:  3,550 sampled rows of it (--max-rows 3550), --cv leave-gpu-out (no spinning run:
#           one takes minutes on a busy machine);
#   others: the other processes that load libgomp: `validate --model` on
#           datasets/layers_neusight_test.csv.gz, `plan --model` on three GPUs, and the unit
#           test binary BUILD_DIR/tests/test_ml on its XGBoost tests (Xgboost.*:GpuBlind.*).
# Env:   RUNS (default 3) runs of each command (no warm-up: a run is seconds to minutes).
set -euo pipefail
repo=$(cd "$(dirname "$0")/.." && pwd)
build=$(cd "${1:-$repo/build}" && pwd)
which=${2:-all}
cnnperf="$build/cnnperf"
runs=${RUNS:-3}
command -v hyperfine >/dev/null || { echo "needs hyperfine (Debian package hyperfine)" >&2; exit 2; }
# The default must be measured with nothing set.
unset OMP_WAIT_POLICY GOMP_SPINCOUNT
export CNNPERF_DATA_DIR="${CNNPERF_DATA_DIR:-$repo}"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
echo "== machine: $(nproc) CPUs, load average $(cut -d' ' -f1-3 /proc/loadavg)"

if [ "$which" = small ] || [ "$which" = all ]; then
  # zcat stops on the pipe head closes: not a failure.
  (zcat "$repo/datasets/layers_neusight.csv.gz" || true) | head -41 >"$tmp/rows40.csv"
  train=("$cnnperf" train --data "$tmp/rows40.csv" -o "$tmp/out.txt")
  echo "== ${train[*]}"
  hyperfine -N --warmup 0 --runs "$runs" \
    -n default "${train[*]}" \
    -n 'OMP_WAIT_POLICY=PASSIVE' "env OMP_WAIT_POLICY=PASSIVE ${train[*]}" \
    -n 'GOMP_SPINCOUNT=300000' "env GOMP_SPINCOUNT=300000 ${train[*]}"
fi
if [ "$which" = large ] || [ "$which" = all ]; then
  train=("$cnnperf" train --data "$repo/datasets/layers_neusight.csv.gz" --max-rows 3550
         --cv leave-gpu-out -o "$tmp/out.txt")
  echo "== ${train[*]}"
  hyperfine -N --warmup 0 --runs "$runs" \
    -n default "${train[*]}" \
    -n 'OMP_WAIT_POLICY=PASSIVE' "env OMP_WAIT_POLICY=PASSIVE ${train[*]}"
fi
if [ "$which" = others ] || [ "$which" = all ]; then
  model="$repo/models/cnnperf_default.json"
  commands=(
    "$cnnperf validate --model $model --data $repo/datasets/layers_neusight_test.csv.gz -o $tmp/v.txt"
    "$cnnperf plan --gpus a100,v100,t4 --batch 1,8,32 --model $model --top 0 --format csv -o $tmp/p.csv"
    "$build/tests/test_ml --gtest_filter=Xgboost.*:GpuBlind.*")
  for command in "${commands[@]}"; do
    echo "== $command"
    hyperfine -N --warmup 0 --runs "$runs" \
      -n default "$command" \
      -n 'OMP_WAIT_POLICY=PASSIVE' "env OMP_WAIT_POLICY=PASSIVE $command" \
      -n 'GOMP_SPINCOUNT=300000' "env GOMP_SPINCOUNT=300000 $command"
  done
fi
