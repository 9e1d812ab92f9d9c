#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# Builds ml_compare and compares cnnperf's regressors with scikit-learn's on the same
# split and features of a real measured CSV (see bench/sklearn_compare.py).
# Usage: bench/sklearn_compare.sh [BUILD_DIR] [extra args for sklearn_compare.py]
set -eu
repo=$(cd "$(dirname "$0")/.." && pwd)
build=${1:-"$repo/build"}
[ $# -gt 0 ] && shift
# scikit-learn comes from Debian (python3-sklearn); installed here when missing (as root).
"$repo/tools/install_deps.sh" python3-sklearn python3-numpy
cmake --build "$build" --target ml_compare -j2 >&2
# On a shared machine libgomp's busy-waiting threads (XGBoost, parts of scikit-learn) burn
# their time slices spinning; passive waiting makes the timings reflect the work. Override
# by setting OMP_WAIT_POLICY yourself.
export OMP_WAIT_POLICY="${OMP_WAIT_POLICY:-PASSIVE}"
# Debian's python3-sklearn lives in /usr/bin/python3, not in a pyenv python earlier on PATH.
exec /usr/bin/python3 "$repo/bench/sklearn_compare.py" \
  --ml-compare "$build/bench/ml_compare" --workdir "$build/sklearn-compare" "$@"
