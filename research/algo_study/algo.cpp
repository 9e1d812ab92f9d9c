// SPDX-License-Identifier: Apache-2.0
// cuDNN algorithm classes of measured convolutions and the one-vs-rest classifier.
#include "algo.hpp"

#include <algorithm>
#include <unordered_map>

#include "cnnperf/common/error.hpp"
#include "cnnperf/common/io.hpp"
#include "cnnperf/model/layer_io.hpp"

namespace cnnperf {

const std::vector<std::string>& conv_algo_classes() {
  static const std::vector<std::string> classes{"implicit gemm",          "winograd",
                                                "winograd (non-fused)",   "fft",
                                                "explicit gemm (im2col)", "other"};
  return classes;
}

int conv_algo_class(std::string_view kernel_sequence) {
  const std::string s = to_lower(kernel_sequence);
  if (s.empty()) return -1;
  const auto has = [&](const char* word) { return s.find(word) != std::string::npos; };
  // Order matters: a non-fused Winograd sequence also runs an sgemm, an FFT one a gemm.
  if (has("winograd")) return has("nonfused") ? 2 : 1;
  if (has("fft")) return 3;
  if (has("implicit_convolve") || has("scudnn") || has("implicit_gemm")) return 0;
  if (has("explicit_convolve") || has("im2col")) return 4;
  return 5;
}

std::vector<int> load_conv_algo_labels(const TrainingData& data) {
  std::vector<int> labels;
  labels.reserve(data.layers.size());
  for (const auto& file : data.files) {
    const LayerTable table = parse_layers_csv(read_text_file(file), file);
    const bool has_sequence = table.table.column("kernel_sequence").has_value();
    const bool has_main = table.table.column("main_kernel").has_value();
    const bool has_pad_end = table.table.column("pad_h_end").has_value();
    for (std::size_t row = 0; row < table.layers.size(); ++row) {
      // The row filter of load_training_data, so index i here is row i of data.
      const auto exact = table.table.get(row, "symmetric_pad_exact");
      const auto target = table.table.get_number(row, "latency_ms");
      if ((exact && *exact == "0" && !has_pad_end) || !target || *target <= 0) continue;
      std::string kernels;
      if (has_sequence) kernels = table.table.get(row, "kernel_sequence").value_or("");
      if (kernels.empty() && has_main) kernels = table.table.get(row, "main_kernel").value_or("");
      const std::size_t i = labels.size();
      if (i >= data.layers.size() || data.latency_ms[i] != *target) {
        throw InputError(table.table.where(row) +
                         ": rows do not line up with the loaded training data (expected all "
                         "rows, unsampled)");
      }
      labels.push_back(conv_algo_class(kernels));
    }
  }
  if (labels.size() != data.layers.size()) {
    throw InputError("algorithm labels: " + std::to_string(labels.size()) + " rows read, " +
                     std::to_string(data.layers.size()) +
                     " expected (the study needs all rows, unsampled)");
  }
  return labels;
}

AlgoClassifier::AlgoClassifier(RegressorKind kind, nlohmann::json params, int n_classes)
    : kind_(kind),
      params_(params.is_null() ? nlohmann::json::object() : std::move(params)),
      n_classes_(n_classes) {
  if (n_classes < 2) throw InputError("algorithm classifier: expected at least 2 classes");
  params_["log_target"] = false;
}

void AlgoClassifier::fit(const FeatureMatrix& x, std::span<const int> labels) {
  if (labels.size() != x.rows) {
    throw InputError("algorithm classifier: " + std::to_string(labels.size()) + " labels for " +
                     std::to_string(x.rows) + " rows");
  }
  std::vector<std::size_t> labelled;
  for (std::size_t i = 0; i < labels.size(); ++i) {
    if (labels[i] >= n_classes_) {
      throw InputError("algorithm classifier: label " + std::to_string(labels[i]) +
                       " out of range");
    }
    if (labels[i] >= 0) labelled.push_back(i);
  }
  if (labelled.empty()) throw InputError("algorithm classifier: no labelled training row");
  const FeatureMatrix xl = x.select_rows(labelled);
  per_class_.clear();
  per_class_.resize(static_cast<std::size_t>(n_classes_));
  std::vector<double> target(labelled.size());
  for (int c = 0; c < n_classes_; ++c) {
    bool present = false;
    for (std::size_t i = 0; i < labelled.size(); ++i) {
      target[i] = labels[labelled[i]] == c ? 1.0 : 0.0;
      present = present || target[i] > 0;
    }
    if (!present) continue;  // never predicted: probability 0
    auto model = make_regressor(kind_, params_);
    model->fit(xl, target);
    per_class_[static_cast<std::size_t>(c)] = std::move(model);
  }
  fitted_ = true;
}

std::vector<double> AlgoClassifier::predict_proba(const FeatureMatrix& x) const {
  if (!fitted_) throw Error("algorithm classifier: predict before fit");
  const auto k = static_cast<std::size_t>(n_classes_);
  std::vector<double> p(x.rows * k, 0.0);
  for (std::size_t c = 0; c < k; ++c) {
    if (!per_class_[c]) continue;
    const auto score = per_class_[c]->predict(x);
    for (std::size_t r = 0; r < x.rows; ++r) p[r * k + c] = std::clamp(score[r], 0.0, 1.0);
  }
  for (std::size_t r = 0; r < x.rows; ++r) {
    double sum = 0;
    for (std::size_t c = 0; c < k; ++c) sum += p[r * k + c];
    if (sum <= 0) {
      // Every one-vs-rest model said "not me": fall back to uniform over fitted classes.
      std::size_t fitted = 0;
      for (std::size_t c = 0; c < k; ++c) fitted += per_class_[c] ? 1 : 0;
      for (std::size_t c = 0; c < k; ++c) {
        p[r * k + c] = per_class_[c] ? 1.0 / static_cast<double>(fitted) : 0.0;
      }
      continue;
    }
    for (std::size_t c = 0; c < k; ++c) p[r * k + c] /= sum;
  }
  return p;
}

std::vector<int> AlgoClassifier::predict(const FeatureMatrix& x) const {
  const auto p = predict_proba(x);
  const auto k = static_cast<std::size_t>(n_classes_);
  std::vector<int> out(x.rows);
  for (std::size_t r = 0; r < x.rows; ++r) {
    const auto first = p.begin() + static_cast<std::ptrdiff_t>(r * k);
    out[r] =
        static_cast<int>(std::max_element(first, first + static_cast<std::ptrdiff_t>(k)) - first);
  }
  return out;
}

}  // namespace cnnperf
