// SPDX-License-Identifier: Apache-2.0
// Gradient-boosted trees trained through the XGBoost C API (Debian libxgboost 1.7.4). A model
// file stores the trained trees as tree arrays (forest.hpp: ~3.5 bytes a node, base64 in the
// JSON); files of schema_version 1 held XGBoost's own JSON model, which is still read.
//
// Prediction does not go through XGBoost: handing it 4-6 MB of JSON per family costs ~100 ms
// each (its JSON reader builds a DOM). The trees are read once, from the tree arrays or from
// XGBoost's JSON text, into flat arrays and evaluated the way XGBoost 1.7's CPU predictor does
// (float features, `value < split` goes to the left child and right = left + 1, NaN takes the
// default child, leaves summed in float in tree order onto base_score), so the results are
// bit-identical to XGBoost's; tests/unit/ml/test_xgboost_fast_load.cpp checks that against
// XGBoost itself. After a fit, the trees are the ones read from the JSON text XGBoost saves,
// and tree arrays hold those floats bit for bit, so a saved-and-reloaded model predicts
// bit-identically.
#include <algorithm>
#include <array>
#include <charconv>
#include <cmath>
#include <limits>
#include <memory>
#include <numeric>
#include <sstream>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "cnnperf/common/error.hpp"
#include "forest.hpp"
#include "json_cursor.hpp"
#include "regressor_internal.hpp"
#include "xgboost_library.hpp"

namespace cnnperf::ml_detail {
namespace {

void check(int rc, const char* call) {
  if (rc != 0) {
    const char* msg = xgboost_library().get_last_error();
    throw Error(std::string("xgboost: ") + call +
                " failed: " + (msg != nullptr ? msg : "(no message)"));
  }
}

/// Owns a DMatrixHandle.
class DMatrix {
 public:
  explicit DMatrix(const FeatureMatrix& x) {
    // XGBoost works in float32; the conversion is the same at fit and predict time.
    std::vector<float> data(x.values.size());
    for (std::size_t i = 0; i < data.size(); ++i) data[i] = static_cast<float>(x.values[i]);
    check(xgboost_library().dmatrix_create_from_mat(
              data.data(), x.rows, x.cols, std::numeric_limits<float>::quiet_NaN(), &handle_),
          "XGDMatrixCreateFromMat");
  }
  ~DMatrix() {
    if (handle_ != nullptr) xgboost_library().dmatrix_free(handle_);
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
    check(xgboost_library().booster_create(cache, n_cache, &handle_), "XGBoosterCreate");
  }
  ~Booster() {
    if (handle_ != nullptr) xgboost_library().booster_free(handle_);
  }
  Booster(const Booster&) = delete;
  Booster& operator=(const Booster&) = delete;
  void set(const std::string& key, const std::string& value) {
    check(xgboost_library().booster_set_param(handle_, key.c_str(), value.c_str()),
          "XGBoosterSetParam");
  }
  [[nodiscard]] BoosterHandle get() const { return handle_; }

 private:
  BoosterHandle handle_ = nullptr;
};

/// Reads XGBoost's JSON model (1.7 layout: learner.gradient_booster.model.trees[] with
/// left_children, right_children, split_indices, split_conditions, default_left arrays)
/// without building a DOM; the arrays prediction does not need are skipped unparsed.
class ForestReader {
 public:
  ForestReader(std::string_view text, std::size_t n_features, std::string where, std::size_t offset)
      : c_(text, std::move(where), offset), n_features_(n_features) {}

  Forest read(std::size_t text_size) {
    // Each node takes well over 20 bytes of JSON (ten arrays hold an entry for it), so this
    // bounds the node count; reserving it spares regrowth copies (untouched pages of the
    // reservation cost nothing).
    forest_.nodes.reserve(text_size / 20 + 1);
    c_.begin_object();
    std::string_view key;
    bool saw_learner = false;
    while (c_.next_member(key)) {
      if (key == "learner") {
        read_learner();
        saw_learner = true;
      } else {
        c_.skip_value();
      }
    }
    c_.expect_end();
    if (!saw_learner) c_.fail("a \"learner\" object (XGBoost's JSON model)");
    return std::move(forest_);
  }

 private:
  void read_learner() {
    c_.begin_object();
    std::string_view key;
    bool saw_booster = false;
    bool saw_base_score = false;
    std::string objective;
    while (c_.next_member(key)) {
      if (key == "gradient_booster") {
        read_gradient_booster();
        saw_booster = true;
      } else if (key == "learner_model_param") {
        c_.begin_object();
        while (c_.next_member(key)) {
          if (key == "base_score") {
            forest_.base_score = float_text(c_.string_value(), "base_score");
            saw_base_score = true;
          } else if (key == "num_class" || key == "num_target") {
            const std::string name(key);
            const std::string_view v = c_.string_value();
            // One output per row is what the rest of cnnperf assumes (and what train builds).
            if (!(v == "0" || (name == "num_target" && v == "1"))) {
              c_.fail(name + " for a single-output regressor");
            }
          } else {
            c_.skip_value();
          }
        }
      } else if (key == "objective") {
        c_.begin_object();
        while (c_.next_member(key)) {
          if (key == "name") {
            objective = c_.string_value();
          } else {
            c_.skip_value();
          }
        }
      } else {
        c_.skip_value();
      }
    }
    // Other objectives transform the summed margin; only the identity is reproduced here.
    if (objective != "reg:squarederror") c_.fail("objective \"reg:squarederror\"");
    if (!saw_booster || !saw_base_score) {
      c_.fail("learner.gradient_booster and learner.learner_model_param.base_score");
    }
  }

  void read_gradient_booster() {
    c_.begin_object();
    std::string_view key;
    std::string name;
    std::int64_t num_trees = -1;
    std::vector<std::int64_t> tree_info;
    while (c_.next_member(key)) {
      if (key == "name") {
        name = c_.string_value();
      } else if (key == "model") {
        c_.begin_object();
        while (c_.next_member(key)) {
          if (key == "trees") {
            c_.begin_array();
            while (c_.next_element()) read_tree();
          } else if (key == "tree_info") {
            c_.int_array(tree_info);
          } else if (key == "gbtree_model_param") {
            c_.begin_object();
            while (c_.next_member(key)) {
              if (key == "num_trees") {
                num_trees = int_text(c_.string_value(), "num_trees");
              } else {
                c_.skip_value();
              }
            }
          } else {
            c_.skip_value();
          }
        }
      } else {
        c_.skip_value();
      }
    }
    // dart scales trees by dropout weights at predict time; plain gbtree sums them.
    if (name != "gbtree") c_.fail("gradient_booster \"gbtree\" (got \"" + name + "\")");
    const auto n = static_cast<std::int64_t>(forest_.roots.size());
    if (num_trees >= 0 && num_trees != n) c_.fail("num_trees equal to the number of trees");
    if (static_cast<std::int64_t>(tree_info.size()) != n) c_.fail("one tree_info entry per tree");
    for (const auto g : tree_info) {
      if (g != 0) c_.fail("tree_info entries 0 (one output group)");
    }
  }

  void read_tree() {
    left_.clear();
    right_.clear();
    split_index_.clear();
    split_cond_.clear();
    default_left_.clear();
    std::int64_t num_nodes = -1;
    c_.begin_object();
    std::string_view key;
    while (c_.next_member(key)) {
      if (key == "left_children") {
        read_ints(left_);
      } else if (key == "right_children") {
        read_ints(right_);
      } else if (key == "split_indices") {
        read_ints(split_index_);
      } else if (key == "split_conditions") {
        c_.float_array(split_cond_);
      } else if (key == "default_left") {
        c_.bool_array(default_left_);
      } else if (key == "split_type") {
        if (!c_.zeros_array()) c_.fail("numerical splits only (split_type 0)");
      } else if (key == "base_weights" || key == "loss_changes" || key == "sum_hessian" ||
                 key == "parents") {
        // Unused for prediction and half the booster's bytes: characters checked only.
        c_.skip_number_array_lenient();
      } else if (key == "tree_param") {
        c_.begin_object();
        while (c_.next_member(key)) {
          if (key == "num_nodes") {
            num_nodes = int_text(c_.string_value(), "num_nodes");
          } else {
            c_.skip_value();
          }
        }
      } else {
        c_.skip_value();
      }
    }
    const std::size_t n = left_.size();
    if (n == 0 || right_.size() != n || split_index_.size() != n || split_cond_.size() != n ||
        default_left_.size() != n || (num_nodes >= 0 && static_cast<std::size_t>(num_nodes) != n)) {
      c_.fail("a tree whose node arrays all have num_nodes entries");
    }
    const std::size_t base = forest_.nodes.size();
    if (base + n > std::numeric_limits<std::int32_t>::max()) c_.fail("fewer tree nodes");
    for (std::size_t i = 0; i < n; ++i) {
      Forest::Node node;
      node.value = split_cond_[i];
      if (left_[i] != -1) {
        if (left_[i] < 0 || static_cast<std::size_t>(left_[i]) + 1 >= n ||
            right_[i] != left_[i] + 1) {
          c_.fail("child indices inside the tree with right = left + 1 (node " + std::to_string(i) +
                  ")");
        }
        if (split_index_[i] < 0 || static_cast<std::size_t>(split_index_[i]) >= n_features_) {
          c_.fail("split feature indices below " + std::to_string(n_features_));
        }
        node.left = static_cast<std::int32_t>(base + static_cast<std::size_t>(left_[i]));
        node.feature_and_default = static_cast<std::uint32_t>(split_index_[i]) |
                                   (default_left_[i] != 0 ? Forest::Node::kDefaultLeft : 0U);
      }
      forest_.nodes.push_back(node);
    }
    forest_.depths.push_back(check_is_tree(base, n));
    forest_.roots.push_back(static_cast<std::uint32_t>(base));
  }

  /// Every node reachable from the root at most once: prediction then always terminates.
  /// Returns the tree's depth (splits from the root to its deepest leaf).
  std::uint32_t check_is_tree(std::size_t base, std::size_t n) {
    seen_.assign(n, 0);
    stack_.assign(1, {0, 0});
    std::uint32_t depth = 0;
    while (!stack_.empty()) {
      const auto [i, d] = stack_.back();
      stack_.pop_back();
      if (seen_[i] != 0) c_.fail("a tree (node " + std::to_string(i) + " is reached twice)");
      seen_[i] = 1;
      depth = std::max(depth, d);
      const auto& node = forest_.nodes[base + i];
      if (node.left >= 0) {
        const std::size_t l = static_cast<std::size_t>(node.left) - base;
        stack_.emplace_back(l, d + 1);
        stack_.emplace_back(l + 1, d + 1);
      }
    }
    return depth;
  }

  void read_ints(std::vector<std::int64_t>& out) { c_.int_array(out); }

  // XGBoost writes its scalar parameters as JSON strings.
  float float_text(std::string_view text, const char* what) {
    float v = 0.0F;
    const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
    if (ec != std::errc() || end != text.data() + text.size() || !std::isfinite(v)) {
      c_.fail(std::string(what) + " as a number in a string");
    }
    return v;
  }
  std::int64_t int_text(std::string_view text, const char* what) {
    std::int64_t v = 0;
    const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
    if (ec != std::errc() || end != text.data() + text.size() || v < 0) {
      c_.fail(std::string(what) + " as a non-negative integer in a string");
    }
    return v;
  }

  JsonCursor c_;
  std::size_t n_features_;
  Forest forest_;
  // Per-tree scratch, reused across trees.
  std::vector<std::int64_t> left_, right_, split_index_;
  std::vector<float> split_cond_;
  std::vector<std::uint8_t> default_left_;
  std::vector<char> seen_;
  std::vector<std::pair<std::size_t, std::uint32_t>> stack_;  ///< (node, its depth)
};

std::string num(double v) {
  std::ostringstream os;
  os.precision(17);
  os << v;
  return os.str();
}

/// model.format of a regressor stored as tree arrays (forest.hpp).
constexpr const char* kTreeArraysFormat = "cnnperf-trees";

class XgboostRegressor final : public Regressor {
 public:
  explicit XgboostRegressor(nlohmann::json params) : Regressor(std::move(params)) {}

  [[nodiscard]] RegressorKind kind() const override { return RegressorKind::kXgboost; }

  [[nodiscard]] std::vector<double> feature_importances() const override { return importance_; }

  /// Completes a regressor restored from the pending marker (attach_booster_text): `text` is
  /// XGBoost's JSON model or, in the tree-arrays format, the base64 `tree_arrays` string's
  /// contents.
  void attach(std::string_view text, const std::string& where, std::size_t offset) {
    if (pending_ == Pending::kNone) {
      throw Error("xgboost: attach_booster_text without a pending booster");
    }
    if (pending_ == Pending::kTreeArrays) {
      forest_ = decode_forest(base64_decode(text, where, offset), n_features(), where);
    } else {
      forest_ = read_forest(text, n_features(), where, offset);
      if (importance_.empty()) importance_ = xgboost_importances(std::string(text), n_features());
    }
    pending_ = Pending::kNone;
  }

 protected:
  void fit_impl(const FeatureMatrix& x, std::span<const double> y,
                std::span<const double> weights) override {
    const DMatrix train(x);
    std::vector<float> labels(y.begin(), y.end());
    check(xgboost_library().dmatrix_set_float_info(train.get(), "label", labels.data(),
                                                   labels.size()),
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
      check(xgboost_library().dmatrix_set_float_info(train.get(), "weight", w.data(), w.size()),
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
      check(xgboost_library().booster_update_one_iter(booster.get(), static_cast<int>(i),
                                                      train.get()),
            "XGBoosterUpdateOneIter");
    }
    bst_ulong len = 0;
    const char* buf = nullptr;
    check(xgboost_library().booster_save_model_to_buffer(booster.get(), R"({"format": "json"})",
                                                         &len, &buf),
          "XGBoosterSaveModelToBuffer");
    pending_ = Pending::kNone;
    xgboost_version_ = version();
    // Trees and importances come from the text a save writes, not from the trained booster,
    // as when XGBoost's JSON was the file format (tree arrays hold the same floats).
    const std::string text(buf, len);
    forest_ = read_forest(text, x.cols, kBoosterWhere);
    importance_ = xgboost_importances(text, x.cols);
  }

  [[nodiscard]] std::vector<double> predict_impl(const FeatureMatrix& x) const override {
    check_attached();
    std::vector<float> rows(x.rows * x.cols);
    for (std::size_t r = 0; r < x.rows; ++r) {
      // XGBoost works in float32: the same conversion as at fit time.
      for (std::size_t c = 0; c < x.cols; ++c) {
        const float v = static_cast<float>(x(r, c));
        // XGBoost's DMatrix refuses infinities (NaN means missing), so no prediction exists.
        if (std::isinf(v)) {
          throw Error("xgboost: feature " + std::to_string(c) + " of row " + std::to_string(r) +
                      " is infinite or too large for float32");
        }
        rows[r * x.cols + c] = v;
      }
    }
    std::vector<float> sums(x.rows);
    forest_.predict(rows.data(), x.rows, x.cols, sums.data());
    return {sums.begin(), sums.end()};
  }

  [[nodiscard]] nlohmann::json model_to_json() const override {
    check_attached();
    return {{"format", kTreeArraysFormat},
            {"xgboost_version", xgboost_version_},
            {"trees", forest_.roots.size()},
            {"nodes", forest_.nodes.size()},
            {"tree_arrays", base64_encode(encode_forest(forest_, n_features()))},
            {"feature_importances", importance_}};
  }

  void model_from_json(const nlohmann::json& model) override {
    xgboost_version_ = model.value("xgboost_version", std::string());
    if (model.contains("booster")) {
      // XGBoost's own JSON model (the format of model files of schema_version 1).
      const auto& booster = model.at("booster");
      importance_ = stored_importances(model, n_features());
      if (is_pending_booster(booster)) {
        pending_ = Pending::kXgboostJson;  // LearnedModel::load attaches the text right after
        return;
      }
      if (!booster.is_object()) {
        throw FieldError("model.booster",
                         std::string("expected an object, got ") + booster.type_name());
      }
      pending_ = Pending::kNone;
      const std::string text = booster.dump();
      forest_ = read_forest(text, n_features(), kBoosterWhere);
      if (importance_.empty()) importance_ = xgboost_importances(text, n_features());
      return;
    }
    if (model.value("format", std::string()) != kTreeArraysFormat) {
      throw FieldError("model.format",
                       std::string("expected \"") + kTreeArraysFormat +
                           "\" (with 'tree_arrays') or a 'booster' (XGBoost's JSON)");
    }
    // Tree arrays carry no booster for XGBoost to compute importances from: the writer's.
    importance_ = stored_importances(model, n_features());
    if (importance_.empty()) {
      throw InputError("model JSON: xgboost: field 'feature_importances': expected " +
                       std::to_string(n_features()) + " numbers");
    }
    const auto& data = require(model, "tree_arrays");
    if (is_pending_booster(data)) {
      pending_ = Pending::kTreeArrays;
      return;
    }
    if (!data.is_string()) {
      throw InputError("model JSON: xgboost: field 'tree_arrays': expected a string");
    }
    pending_ = Pending::kNone;
    const std::string& text = data.get_ref<const std::string&>();
    forest_ =
        decode_forest(base64_decode(text, kTreeArraysWhere, 0), n_features(), kTreeArraysWhere);
  }

 private:
  static std::string version() {
    int major = 0;
    int minor = 0;
    int patch = 0;
    xgboost_library().version(&major, &minor, &patch);
    return std::to_string(major) + "." + std::to_string(minor) + "." + std::to_string(patch);
  }

  static constexpr const char* kBoosterWhere = "model.booster";
  static constexpr const char* kTreeArraysWhere = "model.tree_arrays";

  void check_attached() const {
    if (pending_ != Pending::kNone) {
      throw Error("xgboost: the booster text was never attached (internal error)");
    }
  }

  static Forest read_forest(std::string_view text, std::size_t n_features, const std::string& where,
                            std::size_t offset = 0) {
    return ForestReader(text, n_features, where, offset).read(text.size());
  }

  /// The importances a model file carries (written by model_to_json), or empty when absent
  /// or malformed: they equal what XGBoost computes from the same trees, without the ~100 ms
  /// of loading the booster into XGBoost.
  static std::vector<double> stored_importances(const nlohmann::json& model,
                                                std::size_t n_features) {
    const auto it = model.find("feature_importances");
    if (it == model.end() || !it->is_array() || it->size() != n_features) return {};
    std::vector<double> out;
    out.reserve(n_features);
    for (const auto& v : *it) {
      if (!v.is_number()) return {};
      out.push_back(v.get<double>());
    }
    return out;
  }

  /// Total-gain importances per feature (sum 1) from XGBoost loading `text`.
  std::vector<double> xgboost_importances(const std::string& text, std::size_t n_features) const {
    Booster booster(nullptr, 0);
    check(xgboost_library().booster_load_model_from_buffer(booster.get(), text.data(), text.size()),
          "XGBoosterLoadModelFromBuffer");
    booster.set("nthread",
                std::to_string(resolve_threads(params_.at("n_threads").get<std::int64_t>())));
    bst_ulong n_out = 0;
    const char** names = nullptr;
    bst_ulong dim = 0;
    const bst_ulong* shape = nullptr;
    const float* scores = nullptr;
    check(xgboost_library().booster_feature_score(booster.get(),
                                                  R"({"importance_type": "total_gain"})", &n_out,
                                                  &names, &dim, &shape, &scores),
          "XGBoosterFeatureScore");
    std::vector<double> importance(n_features, 0.0);
    for (bst_ulong i = 0; i < n_out; ++i) {
      // Without feature names XGBoost calls column j "f<j>".
      const std::string name = names[i];
      if (name.size() > 1 && name[0] == 'f') {
        const auto j = std::stoul(name.substr(1));
        if (j < n_features) importance[j] = scores[i];
      }
    }
    const double total = std::accumulate(importance.begin(), importance.end(), 0.0);
    if (total > 0.0) {
      for (double& v : importance) v /= total;
    }
    return importance;
  }

  /// What a regressor restored from the pending marker waits for (attach_booster_text).
  enum class Pending { kNone, kXgboostJson, kTreeArrays };
  Pending pending_ = Pending::kNone;
  std::string xgboost_version_;  ///< the XGBoost that trained the trees ("" when unknown)
  Forest forest_;
  std::vector<double> importance_;
};

}  // namespace

// The marker is a binary value with this subtype: parsing JSON text never yields a binary
// value, so no file can put one there.
constexpr std::uint64_t kPendingBoosterSubtype = 0x63707862;  // "cpxb"

nlohmann::json pending_booster_value() {
  return nlohmann::json::binary(std::vector<std::uint8_t>{}, kPendingBoosterSubtype);
}

bool is_pending_booster(const nlohmann::json& value) {
  return value.is_binary() && value.get_binary().has_subtype() &&
         value.get_binary().subtype() == kPendingBoosterSubtype;
}

bool attach_booster_text(Regressor& regressor, std::string_view text, const std::string& where,
                         std::size_t offset) {
  auto* xgb = dynamic_cast<XgboostRegressor*>(&regressor);
  if (xgb == nullptr) return false;
  xgb->attach(text, where, offset);
  return true;
}

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
