// SPDX-License-Identifier: Apache-2.0
// Gradient-boosted trees through the XGBoost C API (Debian libxgboost 1.7.4). The trained
// booster lives in our model JSON as XGBoost's own JSON model (never a binary blob), and the
// in-memory booster is always the one loaded from that JSON, so a saved-and-reloaded model
// predicts bit-identically.
#include <cmath>
#include <limits>
#include <mutex>
#include <numeric>
#include <sstream>
#include <string>

#include <xgboost/c_api.h>

#include "cnnperf/error.hpp"
#include "regressor_internal.hpp"

namespace cnnperf::ml_detail {
namespace {

void check(int rc, const char* call) {
  if (rc != 0) {
    const char* msg = XGBGetLastError();
    throw Error(std::string("xgboost: ") + call + " failed: " + (msg != nullptr ? msg : "(no message)"));
  }
}

/// Owns a DMatrixHandle.
class DMatrix {
 public:
  explicit DMatrix(const FeatureMatrix& x) {
    // XGBoost works in float32; the conversion is the same at fit and predict time.
    std::vector<float> data(x.values.size());
    for (std::size_t i = 0; i < data.size(); ++i) data[i] = static_cast<float>(x.values[i]);
    check(XGDMatrixCreateFromMat(data.data(), x.rows, x.cols,
                                 std::numeric_limits<float>::quiet_NaN(), &handle_),
          "XGDMatrixCreateFromMat");
  }
  ~DMatrix() {
    if (handle_ != nullptr) XGDMatrixFree(handle_);
  }
  DMatrix(const DMatrix&) = delete;
  DMatrix& operator=(const DMatrix&) = delete;
  [[nodiscard]] DMatrixHandle get() const { return handle_; }

 private:
  DMatrixHandle handle_ = nullptr;
};

/// Owns a BoosterHandle.
class Booster {
 public:
  Booster(const DMatrixHandle* cache, bst_ulong n_cache) {
    check(XGBoosterCreate(cache, n_cache, &handle_), "XGBoosterCreate");
  }
  ~Booster() {
    if (handle_ != nullptr) XGBoosterFree(handle_);
  }
  Booster(const Booster&) = delete;
  Booster& operator=(const Booster&) = delete;
  void set(const std::string& key, const std::string& value) {
    check(XGBoosterSetParam(handle_, key.c_str(), value.c_str()), "XGBoosterSetParam");
  }
  [[nodiscard]] BoosterHandle get() const { return handle_; }

 private:
  BoosterHandle handle_ = nullptr;
};

std::string num(double v) {
  std::ostringstream os;
  os.precision(17);
  os << v;
  return os.str();
}

class XgboostRegressor final : public Regressor {
 public:
  explicit XgboostRegressor(nlohmann::json params) : Regressor(std::move(params)) {}

  [[nodiscard]] RegressorKind kind() const override { return RegressorKind::kXgboost; }

  [[nodiscard]] std::vector<double> feature_importances() const override { return importance_; }

 protected:
  void fit_impl(const FeatureMatrix& x, std::span<const double> y,
                std::span<const double> weights) override {
    const DMatrix train(x);
    std::vector<float> labels(y.begin(), y.end());
    check(XGDMatrixSetFloatInfo(train.get(), "label", labels.data(), labels.size()),
          "XGDMatrixSetFloatInfo(label)");
    double w_sum = 0.0;
    double wy_sum = 0.0;
    for (std::size_t r = 0; r < y.size(); ++r) {
      const double w = weights.empty() ? 1.0 : weights[r];
      w_sum += w;
      wy_sum += w * y[r];
    }
    if (!weights.empty()) {
      std::vector<float> w(weights.begin(), weights.end());
      check(XGDMatrixSetFloatInfo(train.get(), "weight", w.data(), w.size()),
            "XGDMatrixSetFloatInfo(weight)");
    }
    const DMatrixHandle cache[] = {train.get()};
    Booster booster(cache, 1);
    const auto& p = params_;
    booster.set("verbosity", "0");
    booster.set("objective", "reg:squarederror");
    // XGBoost 1.7 starts from 0.5; the weighted target mean saves many rounds on ms targets.
    booster.set("base_score", num(wy_sum / w_sum));
    booster.set("eta", num(p.at("learning_rate").get<double>()));
    booster.set("max_depth", std::to_string(p.at("max_depth").get<std::int64_t>()));
    booster.set("min_child_weight", num(p.at("min_child_weight").get<double>()));
    booster.set("subsample", num(p.at("subsample").get<double>()));
    booster.set("colsample_bytree", num(p.at("colsample_bytree").get<double>()));
    booster.set("lambda", num(p.at("reg_lambda").get<double>()));
    booster.set("alpha", num(p.at("reg_alpha").get<double>()));
    booster.set("gamma", num(p.at("gamma").get<double>()));
    booster.set("tree_method", p.at("tree_method").get<std::string>());
    booster.set("max_bin", std::to_string(p.at("max_bin").get<std::int64_t>()));
    booster.set("seed", std::to_string(p.at("seed").get<std::int64_t>()));
    booster.set("nthread", std::to_string(resolve_threads(p.at("n_threads").get<std::int64_t>())));
    const auto rounds = p.at("n_estimators").get<std::int64_t>();
    for (std::int64_t i = 0; i < rounds; ++i) {
      check(XGBoosterUpdateOneIter(booster.get(), static_cast<int>(i), train.get()),
            "XGBoosterUpdateOneIter");
    }
    bst_ulong len = 0;
    const char* buf = nullptr;
    check(XGBoosterSaveModelToBuffer(booster.get(), R"({"format": "json"})", &len, &buf),
          "XGBoosterSaveModelToBuffer");
    model_ = nlohmann::json::parse(buf, buf + len);
    load_booster(x.cols);
  }

  [[nodiscard]] std::vector<double> predict_impl(const FeatureMatrix& x) const override {
    const DMatrix data(x);
    const std::lock_guard<std::mutex> lock(mutex_);  // the C API reuses one result buffer
    const bst_ulong* shape = nullptr;
    bst_ulong dim = 0;
    const float* result = nullptr;
    check(XGBoosterPredictFromDMatrix(
              booster_->get(), data.get(),
              R"({"type": 0, "training": false, "iteration_begin": 0, "iteration_end": 0, "strict_shape": false})",
              &shape, &dim, &result),
          "XGBoosterPredictFromDMatrix");
    bst_ulong count = 1;
    for (bst_ulong d = 0; d < dim; ++d) count *= shape[d];
    if (count != x.rows) throw Error("xgboost: prediction returned an unexpected number of values");
    return std::vector<double>(result, result + count);
  }

  [[nodiscard]] nlohmann::json model_to_json() const override {
    return {{"format", "xgboost-json"}, {"xgboost_version", version()}, {"booster", model_},
            {"feature_importances", importance_}};
  }

  void model_from_json(const nlohmann::json& model) override {
    const auto& booster = require(model, "booster");
    if (!booster.is_object()) throw InputError("model JSON: xgboost: field 'booster': expected an object");
    model_ = booster;
    load_booster(n_features());
  }

 private:
  static std::string version() {
    int major = 0;
    int minor = 0;
    int patch = 0;
    XGBoostVersion(&major, &minor, &patch);
    return std::to_string(major) + "." + std::to_string(minor) + "." + std::to_string(patch);
  }

  /// (Re)creates the booster from model_ (our stored text) and reads gain importances.
  void load_booster(std::size_t n_features) {
    const std::string text = model_.dump();
    auto booster = std::make_unique<Booster>(nullptr, 0);
    check(XGBoosterLoadModelFromBuffer(booster->get(), text.data(), text.size()),
          "XGBoosterLoadModelFromBuffer");
    booster->set("nthread", std::to_string(resolve_threads(params_.at("n_threads").get<std::int64_t>())));
    bst_ulong n_out = 0;
    const char** names = nullptr;
    bst_ulong dim = 0;
    const bst_ulong* shape = nullptr;
    const float* scores = nullptr;
    check(XGBoosterFeatureScore(booster->get(), R"({"importance_type": "total_gain"})", &n_out,
                                &names, &dim, &shape, &scores),
          "XGBoosterFeatureScore");
    importance_.assign(n_features, 0.0);
    for (bst_ulong i = 0; i < n_out; ++i) {
      // Without feature names XGBoost calls column j "f<j>".
      const std::string name = names[i];
      if (name.size() > 1 && name[0] == 'f') {
        const auto j = std::stoul(name.substr(1));
        if (j < n_features) importance_[j] = scores[i];
      }
    }
    const double total = std::accumulate(importance_.begin(), importance_.end(), 0.0);
    if (total > 0.0) {
      for (double& v : importance_) v /= total;
    }
    booster_ = std::move(booster);
  }

  nlohmann::json model_;
  std::unique_ptr<Booster> booster_;
  std::vector<double> importance_;
  mutable std::mutex mutex_;
};

}  // namespace

std::unique_ptr<Regressor> make_xgboost(const nlohmann::json& params) {
  ParamReader reader("xgboost", params);
  reader.get_common();
  reader.get_int("n_estimators", 300, 1, 100000);
  reader.get_double("learning_rate", 0.1, 1e-9, 1.0);
  reader.get_int("max_depth", 6, 1, 64);
  reader.get_double("min_child_weight", 1.0, 0.0, 1e12);
  reader.get_double("subsample", 1.0, 1e-9, 1.0);
  reader.get_double("colsample_bytree", 1.0, 1e-9, 1.0);
  reader.get_double("reg_lambda", 1.0, 0.0, 1e12);
  reader.get_double("reg_alpha", 0.0, 0.0, 1e12);
  reader.get_double("gamma", 0.0, 0.0, 1e12);
  reader.get_choice("tree_method", "hist", {"hist", "approx", "exact"});
  reader.get_int("max_bin", 256, 2, 65536);
  reader.get_int("n_threads", 0, 0, 1024);
  return std::make_unique<XgboostRegressor>(reader.finish());
}

}  // namespace cnnperf::ml_detail
