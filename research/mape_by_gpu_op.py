#!/usr/bin/env python3
"""MAPE of a layer prediction file per GPU and per (GPU, op).

Reads `cnnperf predict --layers ... --format csv` output (the input's measured `latency_ms`,
its `gpu` and `op` columns, and the appended `predicted_latency_ms`) and prints the rows and
the mean absolute percentage error overall, per GPU and per (GPU, op). It scores what
`validate --data` cannot: the analytical model (`predict --layers ... --analytical`).

Usage: research/mape_by_gpu_op.py PRED.csv
"""
import csv
import sys


def mape(pairs):
    return 100.0 * sum(abs(p - m) / m for m, p in pairs) / len(pairs)


def main() -> int:
    if len(sys.argv) != 2:
        print(__doc__.strip().splitlines()[-1], file=sys.stderr)
        return 2
    path = sys.argv[1]
    groups = {}
    with open(path, newline="") as f:
        for line, r in enumerate(csv.DictReader(f), start=2):
            try:
                measured = float(r["latency_ms"])
                predicted = float(r["predicted_latency_ms"])
                gpu, op = r["gpu"], r["op"]
            except (KeyError, ValueError) as e:
                print("%s:%d: expected latency_ms, predicted_latency_ms, gpu and op: %s"
                      % (path, line, e), file=sys.stderr)
                return 2
            if measured <= 0:
                print("%s:%d: latency_ms %s is not positive" % (path, line, r["latency_ms"]),
                      file=sys.stderr)
                return 2
            for key in (("all", ""), (gpu, ""), (gpu, op)):
                groups.setdefault(key, []).append((measured, predicted))
    print("%-28s %-10s %7s %9s" % ("gpu", "op", "rows", "MAPE %"))
    for (gpu, op), pairs in sorted(groups.items(), key=lambda kv: (kv[0][0] != "all", kv[0])):
        print("%-28s %-10s %7d %9.1f" % (gpu, op or "(all)", len(pairs), mape(pairs)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
