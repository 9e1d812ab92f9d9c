// SPDX-License-Identifier: Apache-2.0
// Trains regressors on the train rows of a numeric CSV and scores them on its test rows, so
// cnnperf's regressors can be compared with another library on the SAME split and features
// (bench/sklearn_compare.sh). Generic input: one target column, one split column holding
// "train" or "test", every other column a numeric feature.
//
//   ml_compare --data FILE.csv --target latency_ms --split split
//              [--regressors linear,knn,dtree,rf,xgboost] [--log-target]
//              [--n-threads N] [--params '{"rf": {"n_trees": 100}}']
//
// Prints CSV: regressor,log_target,n_train,n_test,n_features,train_wall_s,train_cpu_s,
// mape_pct,r2,within_10pct,spearman.
#include <chrono>
#include <ctime>
#include <iostream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "cnnperf/common/error.hpp"
#include "cnnperf/common/io.hpp"
#include "cnnperf/ml/metrics.hpp"
#include "cnnperf/ml/regressor.hpp"

namespace {

struct Options {
  std::string data;
  std::string target;
  std::string split = "split";
  std::vector<std::string> regressors{"linear", "knn", "dtree", "rf", "xgboost"};
  bool log_target = false;
  int n_threads = 2;
  nlohmann::json params = nlohmann::json::object();
};

std::vector<std::string> split_list(const std::string& text) {
  std::vector<std::string> out;
  std::stringstream ss(text);
  for (std::string item; std::getline(ss, item, ',');) {
    if (!item.empty()) out.push_back(item);
  }
  return out;
}

Options parse(int argc, char** argv) {
  Options o;
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    auto value = [&]() -> std::string {
      if (i + 1 >= argc)
        throw cnnperf::InputError("ml_compare: option " + arg + ": expected a value");
      return argv[++i];
    };
    if (arg == "--data") {
      o.data = value();
    } else if (arg == "--target") {
      o.target = value();
    } else if (arg == "--split") {
      o.split = value();
    } else if (arg == "--regressors") {
      o.regressors = split_list(value());
    } else if (arg == "--log-target") {
      o.log_target = true;
    } else if (arg == "--n-threads") {
      o.n_threads = static_cast<int>(cnnperf::parse_positive_int(value(), "--n-threads"));
    } else if (arg == "--params") {
      const std::string text = value();
      try {
        o.params = nlohmann::json::parse(text);
      } catch (const nlohmann::json::exception&) {
        throw cnnperf::InputError("ml_compare: --params: expected a JSON object, got '" + text +
                                  "'");
      }
    } else {
      throw cnnperf::InputError("ml_compare: unknown option '" + arg +
                                "' (expected --data --target --split --regressors --log-target "
                                "--n-threads --params)");
    }
  }
  if (o.data.empty() || o.target.empty()) {
    throw cnnperf::InputError("ml_compare: --data and --target are required");
  }
  return o;
}

struct Split {
  cnnperf::FeatureMatrix train;
  cnnperf::FeatureMatrix test;
  std::vector<double> y_train;
  std::vector<double> y_test;
};

Split load(const Options& o) {
  const cnnperf::CsvTable table = cnnperf::read_csv(o.data);
  if (!table.column(o.target))
    throw cnnperf::InputError(o.data + ": no target column '" + o.target + "'");
  if (!table.column(o.split))
    throw cnnperf::InputError(o.data + ": no split column '" + o.split + "'");
  std::vector<std::string> features;
  for (const auto& name : table.header) {
    if (name != o.target && name != o.split) features.push_back(name);
  }
  Split s;
  std::vector<double> train_values;
  std::vector<double> test_values;
  for (std::size_t r = 0; r < table.rows.size(); ++r) {
    const auto split = table.get(r, o.split).value_or("");
    if (split != "train" && split != "test") {
      throw cnnperf::InputError(table.where(r) + ": field '" + o.split +
                                "': expected train or test, got '" + split + "'");
    }
    auto& values = split == "train" ? train_values : test_values;
    for (const auto& f : features) {
      const auto v = table.get_number(r, f);
      if (!v) throw cnnperf::InputError(table.where(r) + ": field '" + f + "': expected a number");
      values.push_back(*v);
    }
    const auto y = table.get_number(r, o.target);
    if (!y)
      throw cnnperf::InputError(table.where(r) + ": field '" + o.target + "': expected a number");
    (split == "train" ? s.y_train : s.y_test).push_back(*y);
  }
  s.train =
      cnnperf::FeatureMatrix(s.y_train.size(), features.size(), std::move(train_values), features);
  s.test =
      cnnperf::FeatureMatrix(s.y_test.size(), features.size(), std::move(test_values), features);
  return s;
}

}  // namespace

int main(int argc, char** argv) {
  try {
    const Options o = parse(argc, argv);
    const Split s = load(o);
    std::cout << "regressor,log_target,n_train,n_test,n_features,train_wall_s,train_cpu_s,"
                 "mape_pct,r2,within_10pct,spearman\n";
    for (const auto& name : o.regressors) {
      const auto kind = cnnperf::regressor_kind_from_string(name);
      nlohmann::json params =
          o.params.contains(name) ? o.params.at(name) : nlohmann::json::object();
      params["log_target"] = o.log_target;
      if (kind != cnnperf::RegressorKind::kLinear &&
          kind != cnnperf::RegressorKind::kDecisionTree && !params.contains("n_threads")) {
        params["n_threads"] = o.n_threads;
      }
      auto model = cnnperf::make_regressor(kind, params);
      const std::clock_t cpu0 = std::clock();  // process CPU time, all threads
      const auto wall0 = std::chrono::steady_clock::now();
      model->fit(s.train, s.y_train);
      const double wall =
          std::chrono::duration<double>(std::chrono::steady_clock::now() - wall0).count();
      const double cpu = static_cast<double>(std::clock() - cpu0) / CLOCKS_PER_SEC;
      const auto pred = model->predict(s.test);
      const auto m = cnnperf::compute_metrics(s.y_test, pred, s.train.cols);
      std::cout << name << ',' << (o.log_target ? "true" : "false") << ',' << s.train.rows << ','
                << s.test.rows << ',' << s.train.cols << ',' << wall << ',' << cpu << ','
                << m.mape_pct << ',' << m.r2 << ',' << m.within_10pct << ',' << m.spearman << '\n';
    }
    return 0;
  } catch (const cnnperf::Error& e) {
    std::cerr << "error: " << e.what() << '\n';
    return 1;
  }
}
