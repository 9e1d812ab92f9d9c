// SPDX-License-Identifier: Apache-2.0
// Temporary: kinds not implemented yet say so instead of failing to link.
#include "cnnperf/error.hpp"
#include "regressor_internal.hpp"

namespace cnnperf::ml_detail {
std::unique_ptr<Regressor> make_knn(const nlohmann::json&) { throw Error("knn: not implemented yet"); }
std::unique_ptr<Regressor> make_decision_tree(const nlohmann::json&) { throw Error("dtree: not implemented yet"); }
std::unique_ptr<Regressor> make_random_forest(const nlohmann::json&) { throw Error("rf: not implemented yet"); }
std::unique_ptr<Regressor> make_xgboost(const nlohmann::json&) { throw Error("xgboost: not implemented yet"); }
}  // namespace cnnperf::ml_detail
