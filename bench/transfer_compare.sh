#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# Builds transfer_compare and runs it on both per-layer datasets: per op family, leave-source-out
# and leave-one-GPU-out, the learned model, the analytical model and an untuned XGBoost on raw
# features, on the same folds of one seeded uniform sample of 40,000 rows (docs/accuracy.md,
# "Transfer across harnesses and GPUs"). The learned model takes the bundled model's depths
# (models/cnnperf_default.json, metadata.command_line) with a third (base) and a fifth
# (conv/mlpredict) of its boosting rounds at a learning rate raised to match, so that one run
# fits in about 15 minutes on 2 cores.
# Usage: bench/transfer_compare.sh [BUILD_DIR] [extra args for transfer_compare]
set -eu
repo=$(cd "$(dirname "$0")/.." && pwd)
build=${1:-"$repo/build"}
[ $# -gt 0 ] && shift
cmake --build "$build" --target transfer_compare -j2 >&2
# libgomp's spinning threads would burn a shared machine's time slices (see sklearn_compare.sh).
export OMP_WAIT_POLICY="${OMP_WAIT_POLICY:-PASSIVE}"
cd "$repo"
exec "$build/bench/transfer_compare" \
  --data datasets/layers_neusight.csv.gz datasets/layers_mlpredict.csv.gz \
  --max-rows 40000 --seed 42 \
  --params '{"max_depth":7,"n_estimators":150,"learning_rate":0.3,
    "conv/mlpredict":{"max_depth":8,"n_estimators":300,"learning_rate":0.25}}' "$@"
