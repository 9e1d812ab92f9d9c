// SPDX-License-Identifier: Apache-2.0
// The report: one self-contained HTML page (inline CSS and SVG, no JavaScript, no
// external URL) from any JSON result cnnperf writes, one section per input.
#pragma once

#include <string>
#include <vector>

namespace cnnperf {

/// Version of the report page layout; written into the page's <meta name="cnnperf-report">.
inline constexpr int kReportSchemaVersion = 1;

/// One JSON result already in memory: `name` is what the page shows as its file name.
struct ReportInput {
  std::string name;
  std::string json_text;
};

/// What render_report recognised an input as (the section layout follows from it): the
/// result's "kind" field; a file without one (an older cnnperf's train, validate, ptx, gpus
/// show or nets show) by the fields only its producer writes.
enum class ReportKind {
  kNetworkPrediction,  ///< network_prediction: `predict --net ... --format json`
  kPredictionSweep,    ///< prediction_sweep: `predict --net ... --batch 1,8 ... --format json`
  kLayerPredictions,   ///< layer_predictions: `predict --layers ... --format json`
  kPlan,               ///< plan: `plan --format json`
  kTrainMetrics,       ///< train_metrics: `train --format json` (without a kind: "cv")
  kValidateMetrics,    ///< validation_metrics: `validate --format json` ("model_fingerprint")
  kPtxAnalysis,        ///< ptx_analysis: `ptx analyze|layer --format json` ("launches")
  kGpuSpec,            ///< gpu_spec: `gpus show NAME --format json` ("gpu" and "query")
  kNetworkLayers,      ///< network_layers: `nets show NAME --format json`
  kGeneric,            ///< anything else, including non-object JSON
};

/// Short human name of a kind, as the page shows it ("network prediction", ...).
[[nodiscard]] std::string to_string(ReportKind kind);

/// Recognises a parsed JSON text (by its "kind" field, else by its characteristic fields).
/// Throws InputError "NAME: invalid JSON: parse error at line L, column C: ..." when
/// `json_text` does not parse.
[[nodiscard]] ReportKind detect_report_kind(const ReportInput& input);

/// Renders the HTML page. Pure and deterministic: the same inputs give the same bytes.
/// Throws InputError "NAME: invalid JSON: parse error at line L, column C: ..." for an input
/// that does not parse, and ParameterError (inputs) when `inputs` is empty.
[[nodiscard]] std::string render_report(const std::vector<ReportInput>& inputs,
                                        const std::string& title = {});

}  // namespace cnnperf
