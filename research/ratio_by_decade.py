#!/usr/bin/env python3
"""Bias of a prediction file by the size of the measurement (research/notes/accuracy-history.md, "An unseen
GPU's `linear` layers inherit two cards' slow long calls").

Reads `cnnperf predict --layers ... --format csv` output (the input's measured `latency_ms`
and the appended `predicted_latency_ms`) and prints, per file, the MAPE and, per decade of the
measured latency, the rows, the median of predicted / measured and the MAPE. A median away
from 1 in one decade is a bias there that the overall MAPE hides.

Usage: research/ratio_by_decade.py PRED.csv [PRED.csv ...]
"""
import csv
import math
import statistics
import sys


def main() -> int:
    if len(sys.argv) < 2:
        print(__doc__.strip().splitlines()[-1], file=sys.stderr)
        return 2
    for path in sys.argv[1:]:
        by_decade = {}
        errors = []
        with open(path, newline="") as f:
            for line, r in enumerate(csv.DictReader(f), start=2):
                try:
                    measured = float(r["latency_ms"])
                    predicted = float(r["predicted_latency_ms"])
                except (KeyError, ValueError) as e:
                    print(f"{path}:{line}: latency_ms and predicted_latency_ms must be numbers ({e})",
                          file=sys.stderr)
                    return 2
                if measured <= 0:
                    continue
                ratio = predicted / measured
                errors.append(abs(ratio - 1))
                decade = math.floor(math.log10(measured))
                by_decade.setdefault(decade, []).append(ratio)
        if not errors:
            print(f"{path}: no rows with a positive latency_ms", file=sys.stderr)
            return 2
        print(f"{path}: {len(errors)} rows, MAPE {100 * statistics.fmean(errors):.1f} %")
        for decade in sorted(by_decade):
            ratios = by_decade[decade]
            mape = 100 * statistics.fmean(abs(x - 1) for x in ratios)
            print(f"  measured {10.0 ** decade:g}-{10.0 ** (decade + 1):g} ms: {len(ratios)} rows, "
                  f"median predicted/measured {statistics.median(ratios):.2f}, MAPE {mape:.1f} %")
    return 0


if __name__ == "__main__":
    sys.exit(main())
