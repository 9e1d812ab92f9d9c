// SPDX-License-Identifier: Apache-2.0
// Features of a (layer, GPU, measurement source) triple for the learned models.
// Groups (selected by FeatureSpec::parse): layer, analytical, gpu, source, setup, ptx and quant
// (the last two optional).
#pragma once

#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "cnnperf/ml/regressor.hpp"
#include "cnnperf/model/gpu_spec.hpp"
#include "cnnperf/model/layer.hpp"

namespace cnnperf {

/// Which feature groups a model uses.
struct FeatureSpec {
  bool layer = true;       ///< shape parameters (log sizes, kernel, stride, groups, pass)
  bool analytical = true;  ///< FLOPs, bytes, intensity, roofline, tiles, waves, occupancy
  bool gpu = true;         ///< GPU specs, so unseen GPUs are predicted from their specs
  bool source = true;      ///< measurement source one-hot (timing methods differ)
  bool ptx = false;        ///< executed PTX mix of the matching reference kernel
  bool quant = false;      ///< tile/wave quantization residues (c_out mod 64/128, N*P*Q mod tiles)
  /// What the timed region held besides the layer: activation and optimizer one-hots and
  /// asymmetric padding (a separate pad op). A spec read from a model file that lists its
  /// groups without this one has it off.
  bool setup = true;
  /// Writes the gpu group's columns as 0 (same columns, same order): a model fitted so tells
  /// GPUs apart only through the analytical features (roofline, waves, occupancy). The
  /// unseen-GPU candidate of the unseen-GPU check; not a group, not in to_string().
  bool gpu_held_constant = false;

  /// Parses "default", "all", a comma list of groups ("layer,gpu"), or "+ptx"/"-source"
  /// edits of the default ("all" = every group). Throws InputError naming the unknown group.
  static FeatureSpec parse(std::string_view text);
  [[nodiscard]] std::string to_string() const;
};

/// Measurement sources the models know (one-hot). Unknown sources map to none of them.
[[nodiscard]] const std::vector<std::string>& known_sources();
/// The source a prediction impersonates: per-op CUDA-event timing (closest to kernel time).
inline constexpr const char* kReferenceSource = "neusight";
/// The source whose rows are kernel time itself (`cnnperf profile`, CUPTI): no harness on top.
inline constexpr const char* kKernelTimeSource = "cnnperf-profile";

/// Model families: one regressor per op family, since their latency surfaces differ.
enum class OpFamily { kConv, kGemm, kPointwise };
/// Every family, in the order models, reports and exports list them.
inline constexpr OpFamily kOpFamilies[] = {OpFamily::kConv, OpFamily::kGemm, OpFamily::kPointwise};
[[nodiscard]] OpFamily op_family(Op op);
[[nodiscard]] std::string to_string(OpFamily family);
[[nodiscard]] OpFamily op_family_from_string(std::string_view text);

/// Column names for a spec, in the order feature_row() writes them.
[[nodiscard]] std::vector<std::string> feature_names(const FeatureSpec& spec);

/// The group of each column of feature_names(spec) ("layer", "analytical", "gpu", "source",
/// "setup", "ptx", "quant"), in the same order.
[[nodiscard]] std::vector<std::string> feature_groups(const FeatureSpec& spec);

/// One feature row (same order as feature_names(spec)).
[[nodiscard]] std::vector<double> feature_row(const Layer& layer, const GpuSpec& gpu,
                                              std::string_view source, const FeatureSpec& spec);

/// Appends one row per (layer, gpu, source) into a matrix with names set.
[[nodiscard]] FeatureMatrix build_feature_matrix(const std::vector<const Layer*>& layers,
                                                 const std::vector<const GpuSpec*>& gpus,
                                                 const std::vector<std::string>& sources,
                                                 const FeatureSpec& spec);

/// Documentation of every feature: name -> meaning (docs/methodology.md lists them).
[[nodiscard]] const std::map<std::string, std::string>& feature_docs();

}  // namespace cnnperf
