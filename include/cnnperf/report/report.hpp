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

/// What render_report recognised an input as (the section layout follows from it).
enum class ReportKind {
  // The JSON results of the cnnperf commands:
  kNetworkPrediction,  ///< predict, of a network
  kLayerPredictions,   ///< predict, of a layer table
  kPlan,               ///< plan
  kTrainMetrics,       ///< train (no "kind" field: recognised by "cv")
  kValidateMetrics,    ///< validate (recognised by "model_fingerprint")
  kPtxAnalysis,        ///< ptx analyze or layer (recognised by "launches")
  kGpuSpec,            ///< gpus show NAME
  kNetworkLayers,      ///< nets show NAME
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
