#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Start-up of the cnnperf binary, whole process: `--version`, `predict --net resnet50 --gpu a100`
# and the same with the bundled learned model. With a second binary (e.g. one built from an
# older commit), both are timed in the same hyperfine call, so their ratio holds when the
# machine's speed drifts. Prints hyperfine's table (mean ± σ wall, user, system).
#
#   bench/startup.sh build/cnnperf [OTHER_BINARY]
#
# Needs hyperfine (Debian package `hyperfine`). Run from the repository root.
set -euo pipefail
a="${1:?usage: bench/startup.sh CNNPERF_BINARY [OTHER_BINARY]}"
b="${2:-}"
command -v hyperfine >/dev/null || { echo "bench/startup.sh: needs hyperfine" >&2; exit 2; }
for args in "--version" "predict --net resnet50 --gpu a100" \
            "predict --net resnet50 --gpu a100 --model models/cnnperf_default.json"; do
  cmds=("$a $args")
  [ -n "$b" ] && cmds+=("$b $args")
  hyperfine -N --warmup 3 --runs 30 "${cmds[@]}"
done
