#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""bench/e2e_spreadsheet.py: the two-number spreadsheet's fit and its fallbacks, the rank
correlation, and the reading of end-to-end rows. Every number below is SYNTHETIC: latencies
made from a known law of peak FLOP/s and bandwidth, not measurements."""
import csv
import math
import os
import sys
import tempfile
import unittest

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "bench"))
import e2e_spreadsheet as sheet  # noqa: E402

# SYNTHETIC GPUs: (log peak TFLOP/s, log bandwidth GB/s), and ms per image = exp(a + b F + c B).
GPUS = [(math.log(f), math.log(b)) for f, b in
        [(14.0, 616), (130.0, 672), (312.0, 1555), (71.0, 936), (165.0, 1008), (12.0, 548)]]
A, B, C = 3.0, -0.6, -0.3


def law(f, b):
    return A + B * f + C * b


class SpreadsheetFit(unittest.TestCase):
    def test_three_terms_recover_the_law_from_four_or_more_gpus(self):
        train = [(f, b, law(f, b)) for f, b in GPUS[:5]]
        y, terms = sheet.spreadsheet(train, GPUS[5])
        self.assertEqual(terms, 3)
        self.assertAlmostEqual(y, law(*GPUS[5]), places=9)

    def test_three_gpus_fit_flops_alone(self):
        # Bandwidth held at one value: the FLOP/s slope alone is exact.
        train = [(f, 6.0, law(f, 6.0)) for f, _ in GPUS[:3]]
        y, terms = sheet.spreadsheet(train, (GPUS[4][0], 6.0))
        self.assertEqual(terms, 2)
        self.assertAlmostEqual(y, law(GPUS[4][0], 6.0), places=9)

    def test_one_or_two_gpus_scale_by_the_flops_ratio(self):
        f0, b0 = GPUS[0]
        y, terms = sheet.spreadsheet([(f0, b0, 1.0)], (f0 + math.log(2), b0))
        self.assertEqual(terms, 1)
        self.assertAlmostEqual(y, 1.0 - math.log(2), places=12)  # twice the FLOP/s, half the time
        _, terms = sheet.spreadsheet([(f0, b0, 1.0), (GPUS[1][0], b0, 0.5)], GPUS[2])
        self.assertEqual(terms, 1)

    def test_no_other_gpu_gives_no_prediction(self):
        self.assertEqual(sheet.spreadsheet([], GPUS[0]), (None, 0))

    def test_collinear_specs_fall_back_to_fewer_terms(self):
        # FLOP/s and bandwidth in fixed proportion: three terms are not identifiable.
        train = [(f, f + 1.0, law(f, f + 1.0)) for f, _ in GPUS[:4]]
        y, terms = sheet.spreadsheet(train, (GPUS[4][0], GPUS[4][0] + 1.0))
        self.assertEqual(terms, 2)
        self.assertAlmostEqual(y, law(GPUS[4][0], GPUS[4][0] + 1.0), places=9)


class RankAndPeak(unittest.TestCase):
    def test_spearman(self):
        self.assertAlmostEqual(sheet.spearman([1, 2, 3, 4], [10, 20, 30, 40]), 1.0)
        self.assertAlmostEqual(sheet.spearman([1, 2, 3, 4], [4, 3, 2, 1]), -1.0)
        self.assertAlmostEqual(sheet.spearman([1, 2, 3], [1, 1, 2]), math.sqrt(3) / 2)

    def test_half_precision_without_tensor_cores_runs_at_the_fp32_rate(self):
        pascal = {"fp32_tflops": 12.0, "fp16_tflops": 0.19, "tensor_fp16_tflops": 0}
        turing = {"fp32_tflops": 13.0, "fp16_tflops": 27.0, "tensor_fp16_tflops": 54.0}
        self.assertEqual(sheet.peak_tflops(pascal, "fp16"), 12.0)
        self.assertEqual(sheet.peak_tflops(turing, "amp"), 54.0)
        self.assertEqual(sheet.peak_tflops(turing, "fp32"), 13.0)
        ampere = {"fp32_tflops": 19.5, "fp16_tflops": 78, "tensor_fp16_tflops": 312,
                  "tensor_int8_tops": 624}
        self.assertEqual(sheet.peak_tflops(ampere, "int8"), 624)


class Rows(unittest.TestCase):
    def test_largest_batch_per_gpu_and_geometric_mean_of_repeats(self):
        fields = ["network", "gpu", "num_gpus", "batch", "dtype", "mode", "latency_ms"]
        rows = [["resnet50", "gpu-x", 1, 8, "fp32", "training", 100.0],  # smaller batch: dropped
                ["resnet50", "gpu-x", 1, 16, "fp32", "training", 160.0],
                ["resnet50", "gpu-x", 1, 16, "fp32", "training", 250.0],
                ["resnet50", "gpu-y", 1, 16, "fp32", "training", 0.0]]  # not positive: dropped
        with tempfile.TemporaryDirectory() as d:
            path = os.path.join(d, "rows.csv")
            with open(path, "w", newline="") as f:
                w = csv.writer(f)
                w.writerow(fields)
                w.writerows(rows)
            configs = sheet.configs_of(sheet.read_rows(path), sheet.TORCHVISION)
        per_gpu = configs[(sheet.TORCHVISION, "resnet50", "fp32", "training", 1)]
        self.assertEqual(list(per_gpu), ["gpu-x"])
        batch, ms_per_image = per_gpu["gpu-x"]
        self.assertEqual(batch, 16)
        self.assertAlmostEqual(ms_per_image, math.sqrt(160.0 * 250.0) / 16)


class HeldOutRuntimeRows(unittest.TestCase):
    """compare_held_out on SYNTHETIC held-out rows of `train e2e --runtime`: five GPUs on the
    law above, per image, at INT8's peak."""

    def rows(self, scenario, batch):
        out = []
        for i, (f, b) in enumerate(GPUS[:5]):
            ms = math.exp(law(f, b)) * batch
            out.append({"network": "resnet50", "gpu": "gpu-%d" % i, "batch": batch,
                        "precision": "int8", "scenario": scenario, "measured_ms": ms,
                        "predicted_ms": ms * 1.1})
        return out

    def specs(self):
        return {"gpu-%d" % i: {"tensor_int8_tops": math.exp(f), "fp32_tflops": 1.0,
                               "memory_bandwidth_gbs": math.exp(b), "architecture": "x"}
                for i, (f, b) in enumerate(GPUS[:5])}

    def test_the_sheet_fits_each_scenario_on_the_other_gpus(self):
        held = self.rows("SingleStream", 1) + self.rows("Offline", 256)
        doc = sheet.compare_held_out(held, self.specs(), "tensorrt")
        by_slice = {r["slice"]: r for r in doc["slices"]}
        self.assertEqual(set(by_slice), {"tensorrt / all", "tensorrt / SingleStream",
                                         "tensorrt / Offline"})
        # Four other GPUs on the law: the three-term sheet is exact.
        self.assertEqual(doc["sheet_terms_used"], {"3": 10})
        self.assertAlmostEqual(by_slice["tensorrt / all"]["sheet_mape_pct"], 0.0, places=6)
        # cnnperf 10 % slow: 10 % on a latency, 1 - 1/1.1 on a throughput (Offline's unit).
        self.assertAlmostEqual(by_slice["tensorrt / SingleStream"]["cnnperf_mape_pct"], 10.0)
        self.assertAlmostEqual(by_slice["tensorrt / Offline"]["cnnperf_mape_pct"],
                               100 * (1 - 1 / 1.1))
        # An Offline row in samples per second.
        offline = [r for r in doc["rows"] if r["scenario"] == "Offline"][0]
        measured_ms = math.exp(law(*GPUS[0])) * 256
        self.assertAlmostEqual(offline["measured"], 1e3 * 256 / measured_ms)
        self.assertAlmostEqual(offline["cnnperf"], 1e3 * 256 / (measured_ms * 1.1))

    def test_a_row_whose_group_has_no_other_gpu_is_not_scored_by_the_sheet(self):
        held = self.rows("SingleStream", 1)[:1]
        doc = sheet.compare_held_out(held, self.specs(), "tensorrt")
        self.assertEqual(doc["sheet_terms_used"], {"0": 1})
        self.assertIsNone(doc["rows"][0]["sheet"])


if __name__ == "__main__":
    unittest.main()
