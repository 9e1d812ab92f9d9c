#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# Is kernel time monotone in batch? Every layer of six zoo networks at batch 1..512, predicted on
# six GPUs; counts the doublings of the batch that lower a layer's kernel_ms
# (research/notes/accuracy-details.md, "Fallback").
# Usage: research/monotone_batch.sh BUILD_DIR MODEL_ARGS...   e.g.
#   research/monotone_batch.sh build --model models/cnnperf_default.json
#   research/monotone_batch.sh build --analytical
set -eu
build=$1
shift
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
layers="$work/layers.csv"
first=1
for net in resnet50 mobilenet_v2 vgg16 densenet121 efficientnet_b0 inception_v3; do
  for b in 1 2 4 8 16 32 64 128 256 512; do
    if [ $first = 1 ]; then
      "$build/cnnperf" nets show "$net" --batch "$b" --format csv > "$layers"
      first=0
    else
      "$build/cnnperf" nets show "$net" --batch "$b" --format csv | tail -n +2 >> "$layers"
    fi
  done
done
for g in a100-pcie-40gb v100-sxm2-16gb h100-sxm5-80gb l4 t4 rtx-3090; do
  "$build/cnnperf" predict --layers "$layers" --gpu "$g" "$@" --format csv -o "$work/pred_$g.csv" 2>/dev/null
done
python3 - "$work" <<'PY'
import collections, csv, glob, sys
total = lower = 0
worst = 1.0
for path in sorted(glob.glob(sys.argv[1] + "/pred_*.csv")):
    by_layer = collections.defaultdict(dict)
    for r in csv.DictReader(open(path)):
        by_layer[(r["network"], r["name"])][int(r["batch"])] = float(r["kernel_ms"])
    n = down = 0
    for times in by_layer.values():
        batches = sorted(times)
        for a, b in zip(batches, batches[1:]):
            if times[a] <= 0:
                continue
            n += 1
            if times[b] < times[a] * (1 - 1e-9):
                down += 1
                worst = min(worst, times[b] / times[a])
    print("%-20s doublings %6d  lower %5d" % (path.split("pred_")[1][:-4], n, down))
    total += n
    lower += down
print("all GPUs             doublings %6d  lower %5d (%.2f %%), worst ratio %.3f"
      % (total, lower, 100.0 * lower / total, worst))
PY
