// SPDX-License-Identifier: Apache-2.0
// How the learned model transfers, side by side on the SAME folds of the same rows: per op
// family, leave-source-out and leave-one-GPU-out, it scores
//   learned      the learned model as `train --cv SCHEME` fits each fold (cross_validate_family:
//                XGBoost per family and source, --params as given, host floors per fold),
//   learned-no-fallback  the same fold models without the fallback to the analytical estimate
//                outside their training ranges (CvResult::predicted_without_fallback_ms),
//   analytical   the analytical model alone (what `predict --layers --analytical` gives),
//   analytical+harness  the analytical model plus the host floor the learned fold had,
//   xgboost-untuned   XGBoost with its own default parameters (100 rounds, depth 6, eta 0.3) on
//                the log latency, from raw layer, GPU-spec, source and setup features (no
//                analytical features), one model per family over every source.
// Prints Markdown tables (bench/transfer_compare.sh; docs/accuracy.md and
// research/notes/accuracy-details.md).
//
//   transfer_compare --data FILE... [--max-rows N] [--seed S]
//                    [--params '{"max_depth":7,"conv/mlpredict":{"n_estimators":300}}']
//                    [--schemes leave-source-out,leave-gpu-out] [--json FILE]
#include <spdlog/spdlog.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <iostream>
#include <map>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "cnnperf/common/error.hpp"
#include "cnnperf/common/io.hpp"
#include "cnnperf/ml/cross_validation.hpp"
#include "cnnperf/ml/learned_model.hpp"
#include "cnnperf/ml/training_data.hpp"
#include "cnnperf/predict/analytical.hpp"

namespace cnnperf {
namespace {

struct Options {
  std::vector<std::string> data;
  std::size_t max_rows = 0;
  std::uint64_t seed = 42;
  nlohmann::json params = nlohmann::json::object();
  std::vector<CvScheme> schemes{CvScheme::kLeaveSourceOut, CvScheme::kLeaveGpuOut};
  std::string json_out;
};

// The model names, in table order.
const std::vector<std::string> kModels{"learned", "learned-no-fallback", "analytical",
                                       "analytical+harness", "xgboost-untuned"};

Options parse(int argc, char** argv) {
  Options o;
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    const auto value = [&]() -> std::string {
      if (i + 1 >= argc) throw InputError("transfer_compare: " + arg + ": expected a value");
      return argv[++i];
    };
    if (arg == "--data") {
      while (i + 1 < argc && std::string(argv[i + 1]).rfind("--", 0) != 0)
        o.data.push_back(argv[++i]);
    } else if (arg == "--max-rows") {
      o.max_rows = std::stoull(value());
    } else if (arg == "--seed") {
      o.seed = std::stoull(value());
    } else if (arg == "--params") {
      o.params = nlohmann::json::parse(value());
    } else if (arg == "--schemes") {
      o.schemes.clear();
      std::stringstream ss(value());
      for (std::string s; std::getline(ss, s, ',');) o.schemes.push_back(cv_scheme_from_string(s));
    } else if (arg == "--json") {
      o.json_out = value();
    } else {
      throw InputError("transfer_compare: unknown option " + arg);
    }
  }
  if (o.data.empty()) throw InputError("transfer_compare: --data: expected layer CSVs");
  return o;
}

// The learned model's XGBoost parameters for `family`: default_params, the top-level keys of
// --params, and a "FAMILY/SOURCE" object's keys for that source's model (as train's --params).
FamilyParams learned_params(const nlohmann::json& overrides, OpFamily family) {
  FamilyParams out(default_params(RegressorKind::kXgboost));
  for (const auto& [key, value] : overrides.items()) {
    const auto slash = key.find('/');
    if (slash == std::string::npos) {
      out.base[key] = value;
    } else if (key.substr(0, slash) == to_string(family)) {
      out.by_source[key.substr(slash + 1)] = value;
    }
  }
  return out;
}

// Out-of-fold predictions of every model, by model name, on the family's rows.
struct Scored {
  std::vector<std::size_t> rows;
  std::map<std::string, std::vector<double>> predicted_ms;
  double seconds = 0;
};

// Leave-one-GPU-out with a model per source predicts each row by its own source's model, fitted
// on that source's rows: cross-validating each source's rows alone gives the same predictions
// without refitting the other sources' models in every fold, when every fold keeps every
// source at kMinRowsPerSourceModel rows (else the joint cross-validation runs).
// Returns the predictions with the fallback and without it (CvResult's two).
std::pair<std::vector<double>, std::vector<double>> learned_logo(
    const TrainingData& data, OpFamily family, const FamilyParams& params, const FeatureSpec& spec,
    std::uint64_t seed, const std::vector<std::size_t>& rows) {
  std::map<std::string, std::map<std::string, std::size_t>> per_source;  // source -> GPU -> n
  for (const auto r : rows) ++per_source[data.sources[r]][data.gpus[r].name];
  bool separable = per_source.size() >= 2;
  for (const auto& [source, gpus] : per_source) {
    std::size_t total = 0;
    for (const auto& [gpu, n] : gpus) total += n;
    for (const auto& [gpu, n] : gpus) {
      separable = separable && gpus.size() >= 2 && total - n >= kMinRowsPerSourceModel;
    }
  }
  if (!separable) {
    CvResult cv = cross_validate_family(data, family, RegressorKind::kXgboost, params, spec,
                                        CvScheme::kLeaveGpuOut, 5, seed);
    return {std::move(cv.predicted_ms), std::move(cv.predicted_without_fallback_ms)};
  }
  std::map<std::size_t, std::pair<double, double>> by_row;
  for (const auto& [source, gpus] : per_source) {
    const TrainingData part = rows_of_source(data, source);
    std::vector<std::size_t> original;  // part's row -> data's row
    for (std::size_t r = 0; r < data.sources.size(); ++r) {
      if (data.sources[r] == source) original.push_back(r);
    }
    const CvResult cv = cross_validate_family(part, family, RegressorKind::kXgboost, params, spec,
                                              CvScheme::kLeaveGpuOut, 5, seed);
    for (std::size_t i = 0; i < cv.rows.size(); ++i) {
      by_row[original[cv.rows[i]]] = {cv.predicted_ms[i], cv.predicted_without_fallback_ms[i]};
    }
  }
  std::pair<std::vector<double>, std::vector<double>> out;
  for (const auto r : rows) {
    out.first.push_back(by_row.at(r).first);
    out.second.push_back(by_row.at(r).second);
  }
  return out;
}

// The analytical, analytical+harness and untuned-XGBoost predictions, fold by fold.
void score_baselines(const TrainingData& data, CvScheme scheme, std::uint64_t seed,
                     Scored& scored) {
  const auto& rows = scored.rows;
  int n_folds = 0;
  const auto fold = family_folds(data, rows, scheme, 5, seed, &n_folds);
  const FeatureSpec raw = FeatureSpec::parse("layer,gpu,source,setup");
  const nlohmann::json untuned = {
      {"log_target", true}, {"n_estimators", 100}, {"learning_rate", 0.3}, {"max_depth", 6}};
  for (const auto& name : {"analytical", "analytical+harness", "xgboost-untuned"}) {
    scored.predicted_ms[name].assign(rows.size(), 0);
  }
  for (int f = 0; f < n_folds; ++f) {
    std::vector<std::size_t> train, test, test_pos;
    std::vector<double> target;
    for (std::size_t i = 0; i < rows.size(); ++i) {
      if (fold[i] == f) {
        test.push_back(rows[i]);
        test_pos.push_back(i);
      } else {
        train.push_back(rows[i]);
        target.push_back(data.latency_ms[rows[i]]);
      }
    }
    FamilyModel floors;
    floors.harness = fold_harness_terms(data, train, test, scheme);
    auto xgb = make_regressor(RegressorKind::kXgboost, untuned);
    xgb->fit(feature_matrix_of_rows(data, train, raw), target);
    const auto untuned_ms = xgb->predict(feature_matrix_of_rows(data, test, raw));
    for (std::size_t j = 0; j < test.size(); ++j) {
      const auto r = test[j];
      const double a = estimate_layer(data.layers[r], data.gpus[r]).latency_ms;
      scored.predicted_ms["analytical"][test_pos[j]] = a;
      scored.predicted_ms["analytical+harness"][test_pos[j]] =
          a + floors.harness_ms(data.sources[r], data.layers[r], data.gpus[r]);
      scored.predicted_ms["xgboost-untuned"][test_pos[j]] = untuned_ms[j];
    }
  }
}

std::string cell(const Metrics& m) {
  std::ostringstream s;
  s.setf(std::ios::fixed);
  s.precision(1);
  s << m.mape_pct << " (" << m.within_10pct << " %, ";
  s.precision(3);
  s << m.spearman << ")";
  return s.str();
}

// One table row: metrics of every model on `positions` (into scored.rows).
nlohmann::json group_row(const TrainingData& data, const Scored& scored,
                         const std::vector<std::size_t>& positions) {
  std::vector<double> truth;
  for (const auto i : positions) truth.push_back(data.latency_ms[scored.rows[i]]);
  nlohmann::json row = {{"n", positions.size()}};
  for (const auto& name : kModels) {
    std::vector<double> p;
    for (const auto i : positions) p.push_back(scored.predicted_ms.at(name)[i]);
    row[name] = to_json(compute_metrics(truth, p, 1));
  }
  return row;
}

Metrics metrics_of(const nlohmann::json& j) {
  Metrics m;
  m.n = j.at("n").get<std::size_t>();
  m.mape_pct = j.at("mape_pct").get<double>();
  m.within_10pct = j.at("within_10pct").get<double>();
  const auto& rho = j.at("spearman");  // null when undefined (constant predictions)
  m.spearman = rho.is_number() ? rho.get<double>() : std::nan("");
  return m;
}

std::string markdown(const nlohmann::json& rows) {
  std::string out =
      "| split | family | held out | n | unseen-GPU rows | learned | learned-no-fallback | "
      "analytical | analytical+harness | xgboost-untuned | best "
      "|\n|---|---|---|---:|---:|---:|---:|---:|---:|---:|---|\n";
  for (const auto& r : rows) {
    out += "| " + r["split"].get<std::string>() + " | " + r["family"].get<std::string>() + " | " +
           r["held_out"].get<std::string>() + " | ";
    if (r.contains("not_applicable")) {
      out += "0 | | not applicable: " + r["not_applicable"].get<std::string>() + " | | | | | |\n";
      continue;
    }
    out += std::to_string(r["n"].get<std::size_t>()) + " | " +
           (r.contains("unseen_gpu_rows") ? std::to_string(r["unseen_gpu_rows"].get<std::size_t>())
                                          : std::string()) +
           " | ";
    std::string best;
    double best_mape = 1e300;
    for (const auto& name : kModels) {
      const Metrics m = metrics_of(r[name]);
      out += cell(m) + " | ";
      // The two a user cannot get for a layer without a source: analytical+harness, and the
      // learned model without its fallback.
      if (name != "analytical+harness" && name != "learned-no-fallback" && m.mape_pct < best_mape) {
        best_mape = m.mape_pct;
        best = name;
      }
    }
    out += best + " |\n";
  }
  return out;
}

int run(const Options& o) {
  spdlog::set_level(spdlog::level::warn);  // the fold-by-fold lines would bury the tables
  const auto start = std::chrono::steady_clock::now();
  const TrainingData data = load_training_data(o.data, o.max_rows, o.seed);
  std::cerr << "transfer_compare: " << data.layers.size() << " rows (max-rows " << o.max_rows
            << ", seed " << o.seed << ")\n";
  const FeatureSpec spec = FeatureSpec::parse("default");
  nlohmann::json pooled = nlohmann::json::array();
  nlohmann::json per_gpu = nlohmann::json::array();
  for (const auto scheme : o.schemes) {
    for (const auto family : kOpFamilies) {
      Scored scored;
      scored.rows = family_rows(data, family);
      if (scored.rows.empty()) continue;
      const std::string split = to_string(scheme);
      const auto t0 = std::chrono::steady_clock::now();
      const FamilyParams params = learned_params(o.params, family);
      std::cerr << "transfer_compare: " << split << " " << to_string(family) << " ("
                << scored.rows.size() << " rows)\n";
      if (const auto why = scheme_not_applicable(data, scored.rows, scheme); !why.empty()) {
        pooled.push_back({{"split", split},
                          {"family", to_string(family)},
                          {"held_out", "-"},
                          {"not_applicable", why}});
        continue;
      }
      std::map<std::string, std::size_t> unseen;
      if (scheme == CvScheme::kLeaveGpuOut) {
        auto [with, without] = learned_logo(data, family, params, spec, o.seed, scored.rows);
        scored.predicted_ms["learned"] = std::move(with);
        scored.predicted_ms["learned-no-fallback"] = std::move(without);
      } else {
        CvResult cv = cross_validate_family(data, family, RegressorKind::kXgboost, params, spec,
                                            scheme, 5, o.seed);
        scored.predicted_ms["learned"] = std::move(cv.predicted_ms);
        scored.predicted_ms["learned-no-fallback"] = std::move(cv.predicted_without_fallback_ms);
        unseen = cv.unseen_gpu_rows;
      }
      score_baselines(data, scheme, o.seed, scored);
      scored.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
      // Groups: each held-out source (leave-source-out) or GPU (leave-gpu-out), and all rows.
      std::map<std::string, std::vector<std::size_t>> groups;
      for (std::size_t i = 0; i < scored.rows.size(); ++i) {
        const auto r = scored.rows[i];
        groups[scheme == CvScheme::kLeaveGpuOut ? data.gpus[r].name : data.sources[r]].push_back(i);
      }
      std::vector<std::size_t> all(scored.rows.size());
      for (std::size_t i = 0; i < all.size(); ++i) all[i] = i;
      for (const auto& [held, positions] : groups) {
        auto row = group_row(data, scored, positions);
        row.update({{"split", split}, {"family", to_string(family)}, {"held_out", held}});
        if (const auto it = unseen.find(held); it != unseen.end())
          row["unseen_gpu_rows"] = it->second;
        (scheme == CvScheme::kLeaveGpuOut ? per_gpu : pooled).push_back(std::move(row));
      }
      auto row = group_row(data, scored, all);
      row.update({{"split", split},
                  {"family", to_string(family)},
                  {"held_out",
                   scheme == CvScheme::kLeaveGpuOut ? "every GPU, pooled" : "every source, pooled"},
                  {"seconds", scored.seconds}});
      pooled.push_back(std::move(row));
    }
  }
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  std::cout << "Cells: MAPE % (share within ±10 %, Spearman). best: the lowest MAPE of learned, "
               "analytical and xgboost-untuned.\n\n"
            << markdown(pooled) << "\nleave-gpu-out, per held-out GPU:\n\n"
            << markdown(per_gpu) << "\n";
  std::cerr << "transfer_compare: " << data.layers.size() << " rows in " << seconds << " s\n";
  if (!o.json_out.empty()) {
    const nlohmann::json doc = {
        {"rows", data.layers.size()}, {"max_rows", o.max_rows}, {"seed", o.seed},
        {"params", o.params},         {"pooled", pooled},       {"per_gpu", per_gpu},
        {"seconds", seconds}};
    write_output(o.json_out, doc.dump(2) + "\n");
  }
  return 0;
}

}  // namespace
}  // namespace cnnperf

int main(int argc, char** argv) {
  try {
    return cnnperf::run(cnnperf::parse(argc, argv));
  } catch (const std::exception& e) {
    std::cerr << e.what() << "\n";
    return 2;
  }
}
