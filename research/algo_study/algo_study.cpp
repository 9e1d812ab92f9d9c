// SPDX-License-Identifier: Apache-2.0
// The algorithm study: does knowing (or predicting) the cuDNN algorithm lower the learned
// model's conv error on held-out shapes? Every variant is scored on the same group-shape folds.
#include <spdlog/spdlog.h>

#include <algorithm>
#include <chrono>
#include <numeric>
#include <random>
#include <unordered_map>

#include "algo.hpp"
#include "cnnperf/common/error.hpp"
#include "cnnperf/common/io.hpp"
#include "cnnperf/ml/features.hpp"
#include "cnnperf/model/layer_io.hpp"
#include "cnnperf/predict/analytical.hpp"

namespace cnnperf {

namespace {

// A per-mode regressor needs enough rows of its class; smaller classes use the global model.
constexpr std::size_t kMinRowsPerMode = 200;

FeatureMatrix matrix_of(const TrainingData& data, const std::vector<std::size_t>& rows,
                        const FeatureSpec& spec) {
  std::vector<const Layer*> layers;
  std::vector<const GpuSpec*> gpus;
  std::vector<std::string> sources;
  for (const auto r : rows) {
    layers.push_back(&data.layers[r]);
    gpus.push_back(&data.gpus[r]);
    sources.push_back(data.sources[r]);
  }
  return build_feature_matrix(layers, gpus, sources, spec);
}

// Columns of `b` appended to `a` (same rows).
FeatureMatrix hconcat(const FeatureMatrix& a, const FeatureMatrix& b) {
  FeatureMatrix m(a.rows, a.cols + b.cols);
  m.names = a.names;
  m.names.insert(m.names.end(), b.names.begin(), b.names.end());
  for (std::size_t r = 0; r < a.rows; ++r) {
    std::copy(a.row(r), a.row(r) + a.cols,
              m.values.begin() + static_cast<std::ptrdiff_t>(r * m.cols));
    std::copy(b.row(r), b.row(r) + b.cols,
              m.values.begin() + static_cast<std::ptrdiff_t>(r * m.cols + a.cols));
  }
  return m;
}

FeatureMatrix class_columns(std::vector<double> values, std::size_t rows, const char* prefix) {
  const std::size_t k = conv_algo_classes().size();
  std::vector<std::string> names;
  for (const auto& c : conv_algo_classes()) names.push_back(prefix + c);
  return FeatureMatrix(rows, k, std::move(values), names);
}

FeatureMatrix one_hot(std::span<const int> labels, std::span<const std::size_t> rows) {
  const std::size_t k = conv_algo_classes().size();
  std::vector<double> v(rows.size() * k, 0.0);
  for (std::size_t i = 0; i < rows.size(); ++i) {
    const int label = labels[rows[i]];
    if (label >= 0) v[i * k + static_cast<std::size_t>(label)] = 1.0;
  }
  return class_columns(std::move(v), rows.size(), "measured_");
}

std::vector<double> fit_predict(RegressorKind kind, const nlohmann::json& params,
                                const FeatureMatrix& x_train, std::span<const double> ratio_train,
                                const FeatureMatrix& x_test) {
  auto model = make_regressor(kind, params);
  model->fit(x_train, ratio_train);
  return model->predict(x_test);
}

}  // namespace

const std::vector<std::string>& algo_study_variants() {
  static const std::vector<std::string> names{"baseline",   "quant",    "oracle",         "algo",
                                              "algo+quant", "per-mode", "oracle-per-mode"};
  return names;
}

std::vector<int> group_shape_folds(const TrainingData& data, const std::vector<std::size_t>& rows,
                                   int folds, std::uint64_t seed) {
  // Mirrors cross_validate_family: groups numbered by first appearance, shuffled with the
  // seed, group g lands in fold shuffled[g] % folds.
  std::mt19937_64 rng(seed);
  std::unordered_map<std::string, int> group_of;
  std::vector<int> group(rows.size());
  for (std::size_t i = 0; i < rows.size(); ++i) {
    const auto key = csv_line(layer_csv_fields(data.layers[rows[i]]));
    group[i] = group_of.emplace(key, static_cast<int>(group_of.size())).first->second;
  }
  std::vector<int> assignment(group_of.size());
  std::iota(assignment.begin(), assignment.end(), 0);
  std::shuffle(assignment.begin(), assignment.end(), rng);
  std::vector<int> fold(rows.size());
  for (std::size_t i = 0; i < rows.size(); ++i) {
    fold[i] = assignment[static_cast<std::size_t>(group[i])] % folds;
  }
  return fold;
}

AlgoFoldProbabilities algo_fold_probabilities(const FeatureMatrix& x, std::span<const int> labels,
                                              std::span<const std::uint64_t> groups,
                                              std::span<const std::size_t> train_rows,
                                              std::span<const std::size_t> test_rows,
                                              RegressorKind classifier,
                                              const nlohmann::json& classifier_params,
                                              int inner_folds, std::uint64_t seed) {
  if (labels.size() != x.rows || groups.size() != x.rows) {
    throw InputError("algorithm probabilities: labels/groups do not match the feature rows");
  }
  const int k = static_cast<int>(conv_algo_classes().size());
  const auto ku = static_cast<std::size_t>(k);
  // Only training labels are copied out; test rows' labels are never looked at.
  std::vector<int> train_labels;
  std::vector<std::uint64_t> train_groups;
  for (const auto r : train_rows) {
    train_labels.push_back(labels[r]);
    train_groups.push_back(groups[r]);
  }
  const FeatureMatrix x_train = x.select_rows(train_rows);
  AlgoFoldProbabilities out;
  AlgoClassifier full(classifier, classifier_params, k);
  full.fit(x_train, train_labels);
  out.test = full.predict_proba(x.select_rows(test_rows));
  if (inner_folds < 2) {
    out.train = full.predict_proba(x_train);
    return out;
  }
  // The regressor must learn from probabilities as noisy as those of unseen shapes, so the
  // training rows get theirs from inner classifiers that did not see their shape.
  out.train.assign(train_rows.size() * ku, 0.0);
  // Inner group folds: distinct groups shuffled with the seed, dealt round-robin.
  std::vector<std::uint64_t> distinct = train_groups;
  std::sort(distinct.begin(), distinct.end());
  distinct.erase(std::unique(distinct.begin(), distinct.end()), distinct.end());
  std::mt19937_64 rng(seed + 1);
  std::shuffle(distinct.begin(), distinct.end(), rng);
  std::unordered_map<std::uint64_t, int> inner_fold;
  for (std::size_t g = 0; g < distinct.size(); ++g) {
    inner_fold[distinct[g]] = static_cast<int>(g % static_cast<std::size_t>(inner_folds));
  }
  for (int f = 0; f < inner_folds; ++f) {
    std::vector<std::size_t> fit_rows, held;
    for (std::size_t i = 0; i < train_groups.size(); ++i) {
      (inner_fold[train_groups[i]] == f ? held : fit_rows).push_back(i);
    }
    if (held.empty()) continue;
    if (fit_rows.empty()) {
      throw InputError("algorithm probabilities: an inner fold holds every training shape");
    }
    std::vector<int> fit_labels;
    fit_labels.reserve(fit_rows.size());
    for (const auto i : fit_rows) fit_labels.push_back(train_labels[i]);
    AlgoClassifier inner_model(classifier, classifier_params, k);
    inner_model.fit(x_train.select_rows(fit_rows), fit_labels);
    const auto p = inner_model.predict_proba(x_train.select_rows(held));
    for (std::size_t i = 0; i < held.size(); ++i) {
      std::copy(p.begin() + static_cast<std::ptrdiff_t>(i * ku),
                p.begin() + static_cast<std::ptrdiff_t>((i + 1) * ku),
                out.train.begin() + static_cast<std::ptrdiff_t>(held[i] * ku));
    }
  }
  return out;
}

AlgoStudyResult run_algo_study(const TrainingData& data, const std::vector<int>& labels,
                               const AlgoStudyOptions& options) {
  if (labels.size() != data.layers.size()) {
    throw InputError("algorithm study: " + std::to_string(labels.size()) + " labels for " +
                     std::to_string(data.layers.size()) + " rows");
  }
  const auto& known = algo_study_variants();
  std::vector<std::string> variants = options.variants.empty() ? known : options.variants;
  for (const auto& v : variants) {
    if (std::find(known.begin(), known.end(), v) == known.end()) {
      throw ParameterError(
          "variants",
          "unknown variant '" + v +
              "' (expected baseline, quant, oracle, algo, algo+quant, per-mode, oracle-per-mode)");
    }
  }
  const bool need_classifier = std::any_of(variants.begin(), variants.end(), [](const auto& v) {
    return v == "algo" || v == "algo+quant" || v == "per-mode";
  });
  const nlohmann::json params = options.params.is_null() || options.params.empty()
                                    ? default_params(options.regressor)
                                    : options.params;
  const nlohmann::json cls_params =
      options.classifier_params.is_null() || options.classifier_params.empty()
          ? nlohmann::json{{"n_trees", 60},
                           {"min_samples_leaf", 2},
                           {"max_features", 0.5},
                           {"seed", options.seed}}
          : options.classifier_params;

  AlgoStudyResult result;
  const std::vector<std::size_t> rows = family_rows(data, OpFamily::kConv);
  const std::size_t n = rows.size();
  result.rows = n;
  if (n == 0) throw InputError("algorithm study: the data hold no conv rows");
  std::vector<int> row_labels(n);
  for (std::size_t i = 0; i < n; ++i) {
    row_labels[i] = labels[rows[i]];
    result.class_counts[row_labels[i] < 0
                            ? std::string("(none)")
                            : conv_algo_classes()[static_cast<std::size_t>(row_labels[i])]]++;
    result.rows_per_gpu[data.gpus[rows[i]].name]++;
  }
  const std::vector<int> fold = group_shape_folds(data, rows, options.folds, options.seed);
  std::vector<std::uint64_t> groups(n);
  {
    std::unordered_map<std::string, std::uint64_t> ids;
    for (std::size_t i = 0; i < n; ++i) {
      const auto key = csv_line(layer_csv_fields(data.layers[rows[i]]));
      groups[i] = ids.emplace(key, ids.size()).first->second;
    }
  }

  const FeatureSpec base_spec;  // today's default groups
  FeatureSpec quant_spec{false, false, false, false, false, false, false};
  quant_spec.quant = true;
  // The classifier sees what is known before running: shape, our mapping, the GPU.
  const FeatureSpec cls_spec{true, true, true, false, false, false, false};
  spdlog::info("algo study: building features for {} conv rows", n);
  const FeatureMatrix x_base = matrix_of(data, rows, base_spec);
  const FeatureMatrix x_quant = matrix_of(data, rows, quant_spec);
  const FeatureMatrix x_cls = need_classifier ? matrix_of(data, rows, cls_spec) : FeatureMatrix{};
  std::vector<double> truth(n), ratio(n), analytical(n), roofline(n);
  for (std::size_t i = 0; i < n; ++i) {
    const LayerEstimate e = estimate_layer(data.layers[rows[i]], data.gpus[rows[i]]);
    truth[i] = data.latency_ms[rows[i]];
    analytical[i] = e.latency_ms;
    roofline[i] = e.roofline_ms;
    ratio[i] = truth[i] / e.latency_ms;
  }

  std::map<std::string, std::vector<double>> predicted;
  std::map<std::string, double> seconds;
  for (const auto& v : variants) predicted[v].assign(n, 0.0);
  std::vector<int> predicted_class(n, -1);
  const auto clock = [] { return std::chrono::steady_clock::now(); };
  const auto since = [](auto start) {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  };

  for (int f = 0; f < options.folds; ++f) {
    std::vector<std::size_t> train, test;
    for (std::size_t i = 0; i < n; ++i) (fold[i] == f ? test : train).push_back(i);
    if (train.empty() || test.empty()) continue;
    spdlog::info("algo study fold {}/{}: train {} test {}", f + 1, options.folds, train.size(),
                 test.size());
    std::vector<double> ratio_train;
    ratio_train.reserve(train.size());
    for (const auto i : train) ratio_train.push_back(ratio[i]);
    const FeatureMatrix xb_train = x_base.select_rows(train);
    const FeatureMatrix xb_test = x_base.select_rows(test);

    AlgoFoldProbabilities probs;
    if (need_classifier) {
      const auto start = clock();
      probs = algo_fold_probabilities(x_cls, row_labels, groups, train, test, options.classifier,
                                      cls_params, options.inner_folds,
                                      options.seed + static_cast<std::uint64_t>(f));
      const std::size_t k = conv_algo_classes().size();
      for (std::size_t t = 0; t < test.size(); ++t) {
        const auto first = probs.test.begin() + static_cast<std::ptrdiff_t>(t * k);
        predicted_class[test[t]] = static_cast<int>(
            std::max_element(first, first + static_cast<std::ptrdiff_t>(k)) - first);
      }
      seconds["classifier"] += since(start);
    }

    for (const auto& v : variants) {
      const auto start = clock();
      std::vector<double> out;
      if (v == "baseline") {
        out = fit_predict(options.regressor, params, xb_train, ratio_train, xb_test);
      } else if (v == "quant") {
        out = fit_predict(options.regressor, params, hconcat(xb_train, x_quant.select_rows(train)),
                          ratio_train, hconcat(xb_test, x_quant.select_rows(test)));
      } else if (v == "oracle") {
        out = fit_predict(options.regressor, params, hconcat(xb_train, one_hot(row_labels, train)),
                          ratio_train, hconcat(xb_test, one_hot(row_labels, test)));
      } else if (v == "algo" || v == "algo+quant") {
        FeatureMatrix a = hconcat(xb_train, class_columns(probs.train, train.size(), "p_"));
        FeatureMatrix b = hconcat(xb_test, class_columns(probs.test, test.size(), "p_"));
        if (v == "algo+quant") {
          a = hconcat(a, x_quant.select_rows(train));
          b = hconcat(b, x_quant.select_rows(test));
        }
        out = fit_predict(options.regressor, params, a, ratio_train, b);
      } else {  // per-mode: a regressor per measured class, test rows routed by predicted class
        // (oracle-per-mode routes them by their measured class: the bound of per-mode).
        const bool oracle_route = v == "oracle-per-mode";
        out = fit_predict(options.regressor, params, xb_train, ratio_train, xb_test);
        for (int c = 0; c < static_cast<int>(conv_algo_classes().size()); ++c) {
          std::vector<std::size_t> tr, te_pos;
          for (std::size_t t = 0; t < train.size(); ++t) {
            if (row_labels[train[t]] == c) tr.push_back(t);
          }
          for (std::size_t t = 0; t < test.size(); ++t) {
            const int route = oracle_route ? row_labels[test[t]] : predicted_class[test[t]];
            if (route == c) te_pos.push_back(t);
          }
          if (tr.size() < kMinRowsPerMode || te_pos.empty()) continue;
          std::vector<double> rt;
          rt.reserve(tr.size());
          for (const auto t : tr) rt.push_back(ratio_train[t]);
          const auto pm = fit_predict(options.regressor, params, xb_train.select_rows(tr), rt,
                                      xb_test.select_rows(te_pos));
          for (std::size_t j = 0; j < te_pos.size(); ++j) out[te_pos[j]] = pm[j];
        }
      }
      auto& pred = predicted[v];
      for (std::size_t t = 0; t < test.size(); ++t) {
        const auto i = test[t];
        pred[i] = std::max(analytical[i] * out[t], roofline[i]);
      }
      seconds[v] += since(start);
    }
  }

  for (const auto& v : variants) {
    AlgoStudyVariant r;
    r.name = v;
    r.seconds = seconds[v];
    r.overall = compute_metrics(truth, predicted[v], x_base.cols);
    std::map<std::string, std::pair<std::vector<double>, std::vector<double>>> by_gpu;
    for (std::size_t i = 0; i < n; ++i) {
      auto& [t, p] = by_gpu[data.gpus[rows[i]].name];
      t.push_back(truth[i]);
      p.push_back(predicted[v][i]);
    }
    for (const auto& [gpu, tp] : by_gpu) {
      r.per_gpu[gpu] = compute_metrics(tp.first, tp.second, x_base.cols);
    }
    // Per measured algorithm: where the error sits, and whether a variant moves it.
    std::map<std::string, std::pair<std::vector<double>, std::vector<double>>> by_class;
    for (std::size_t i = 0; i < n; ++i) {
      if (row_labels[i] < 0) continue;
      auto& [t, p] = by_class[conv_algo_classes()[static_cast<std::size_t>(row_labels[i])]];
      t.push_back(truth[i]);
      p.push_back(predicted[v][i]);
    }
    for (const auto& [cls, tp] : by_class) {
      r.per_class[cls] = compute_metrics(tp.first, tp.second, x_base.cols);
    }
    result.variants.push_back(std::move(r));
  }
  if (need_classifier) {
    std::map<std::string, std::pair<std::size_t, std::size_t>> hits;  // gpu -> (right, labelled)
    std::size_t right = 0, labelled = 0;
    for (std::size_t i = 0; i < n; ++i) {
      if (row_labels[i] < 0) continue;
      const bool ok = predicted_class[i] == row_labels[i];
      auto& h = hits[data.gpus[rows[i]].name];
      h.first += ok ? 1 : 0;
      h.second += 1;
      right += ok ? 1 : 0;
      ++labelled;
    }
    result.classifier_accuracy =
        labelled ? 100.0 * static_cast<double>(right) / static_cast<double>(labelled) : 0;
    for (const auto& [gpu, h] : hits) {
      result.classifier_accuracy_per_gpu[gpu] =
          100.0 * static_cast<double>(h.first) / static_cast<double>(h.second);
    }
  }
  return result;
}

nlohmann::json to_json(const AlgoStudyResult& result) {
  nlohmann::json doc;
  doc["rows"] = result.rows;
  doc["class_counts"] = result.class_counts;
  doc["variants"] = nlohmann::json::array();
  for (const auto& v : result.variants) {
    nlohmann::json j;
    j["variant"] = v.name;
    j["seconds"] = v.seconds;
    j["overall"] = to_json(v.overall);
    j["per_gpu"] = nlohmann::json::object();
    for (const auto& [gpu, m] : v.per_gpu) j["per_gpu"][gpu] = to_json(m);
    j["per_class"] = nlohmann::json::object();
    for (const auto& [cls, m] : v.per_class) j["per_class"][cls] = to_json(m);
    doc["variants"].push_back(std::move(j));
  }
  if (result.classifier_accuracy >= 0) {
    doc["classifier_accuracy_pct"] = result.classifier_accuracy;
    doc["classifier_accuracy_pct_per_gpu"] = result.classifier_accuracy_per_gpu;
  }
  doc["rows_per_gpu"] = result.rows_per_gpu;
  return doc;
}

}  // namespace cnnperf
