#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Does a board's power budget explain what the tensorrt fit misses on MLPerf Offline?

A board whose TDP cannot feed every SM at its boost clock runs a sustained load below boost.
Two proxies for that from the GPU database (models/gpus.json): the power budget per SM-GHz at
boost, tdp_w / (sm_count x boost_clock_mhz / 1000), and the spec's base clock over its boost
clock. This reads the leave-one-GPU-out rows the bundled tensorrt fit wrote
(models/tensorrt_overhead.json, report.leave-gpu-out.held_out), prints each Offline GPU's
predicted / measured time beside both proxies, their rank correlation within Ampere and over
all GPUs, and the Offline MAPE (samples per second) after a correction
log(pred/meas) ~ offset + slope x log(proxy), itself fitted leave-one-GPU-out: the slope within
architectures on the other GPUs, the offset on the other GPUs of the held-out one's
architecture (or on all of them). Python standard library only.

    python3 research/sustained_clock_study.py [--fit models/tensorrt_overhead.json]
"""
import argparse
import json
import math
import statistics


def ranks(values):
    order = sorted(range(len(values)), key=lambda i: values[i])
    out = [0.0] * len(values)
    for rank, i in enumerate(order):
        out[i] = float(rank)
    return out


def spearman(a, b):
    ra, rb = ranks(a), ranks(b)
    ma, mb = statistics.mean(ra), statistics.mean(rb)
    num = sum((x - ma) * (y - mb) for x, y in zip(ra, rb))
    den = math.sqrt(sum((x - ma) ** 2 for x in ra) * sum((y - mb) ** 2 for y in rb))
    return num / den


def corrected_mape(rows, proxy, offset_by_architecture):
    """Offline throughput MAPE % after the held-out correction, and each GPU's signed error."""
    errors, signed = [], []
    for i, held in enumerate(rows):
        train = [r for j, r in enumerate(rows) if j != i]
        num = den = 0.0
        for arch in {r["arch"] for r in train}:
            group = [r for r in train if r["arch"] == arch]
            if len(group) < 2:
                continue
            my = statistics.mean(r["y"] for r in group)
            mx = statistics.mean(r[proxy] for r in group)
            num += sum((r["y"] - my) * (r[proxy] - mx) for r in group)
            den += sum((r[proxy] - mx) ** 2 for r in group)
        slope = num / den if den else 0.0
        same = [r for r in train if r["arch"] == held["arch"]]
        pool = same if offset_by_architecture and same else train
        offset = statistics.mean(r["y"] - slope * r[proxy] for r in pool)
        ratio = math.exp(held["y"] - offset - slope * held[proxy])  # corrected pred / meas time
        errors.append(abs(1 / ratio - 1) * 100)
        signed.append(f"{held['gpu']} {(1 / ratio - 1) * 100:+.0f}")
    return statistics.mean(errors), signed


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--fit", default="models/tensorrt_overhead.json")
    parser.add_argument("--gpus", default="models/gpus.json")
    args = parser.parse_args()
    db = {g["name"]: g for g in json.load(open(args.gpus))["gpus"]}
    held_out = json.load(open(args.fit))["report"]["leave-gpu-out"]["held_out"]
    rows = []
    for r in held_out:
        if r["scenario"] != "Offline":
            continue
        g = db[r["gpu"]]
        budget = g["tdp_w"] / (g["sm_count"] * g["boost_clock_mhz"] / 1000)
        rows.append({"gpu": r["gpu"], "arch": g["architecture"],
                     "y": math.log(r["predicted_ms"] / r["measured_ms"]),
                     "budget": math.log(budget),
                     "base": math.log(g["base_clock_mhz"] / g["boost_clock_mhz"])})
    rows.sort(key=lambda r: (r["arch"], r["gpu"]))
    print("| GPU | architecture | predicted / measured time | W per SM-GHz | base / boost clock |")
    print("|---|---|---:|---:|---:|")
    for r in rows:
        print(f"| {r['gpu']} | {r['arch']} | {math.exp(r['y']):.3f} | {math.exp(r['budget']):.2f} "
              f"| {math.exp(r['base']):.2f} |")
    print()
    for label, subset in (("ampere", [r for r in rows if r["arch"] == "ampere"]), ("all", rows)):
        ys = [r["y"] for r in subset]
        print(f"Spearman over {label} ({len(subset)} GPUs): W per SM-GHz "
              f"{spearman(ys, [r['budget'] for r in subset]):.2f}, base / boost "
              f"{spearman(ys, [r['base'] for r in subset]):.2f}")
    base_mape = statistics.mean(abs(math.exp(-r["y"]) - 1) * 100 for r in rows)
    print(f"\nOffline MAPE %, held out: as fitted {base_mape:.1f}")
    for proxy in ("budget", "base"):
        for by_arch in (True, False):
            mape, signed = corrected_mape(rows, proxy, by_arch)
            print(f"  corrected by {proxy}, offset {'per architecture' if by_arch else 'shared'}: "
                  f"{mape:.1f} ({', '.join(signed)})")


if __name__ == "__main__":
    main()
