// SPDX-License-Identifier: Apache-2.0
// XGBoost's C API, loaded with dlopen on first use. Only `train` fits boosters (prediction
// evaluates tree arrays itself, forest.hpp), so the binary does not link libxgboost and does
// not pay its ~6,000 symbol relocations at every start.
#pragma once

#include <xgboost/c_api.h>

namespace cnnperf::ml_detail {

/// The C API functions cnnperf calls, resolved from the library.
struct XgboostLibrary {
  decltype(&::XGBGetLastError) get_last_error = nullptr;
  decltype(&::XGBoostVersion) version = nullptr;
  decltype(&::XGDMatrixCreateFromMat) dmatrix_create_from_mat = nullptr;
  decltype(&::XGDMatrixFree) dmatrix_free = nullptr;
  decltype(&::XGDMatrixSetFloatInfo) dmatrix_set_float_info = nullptr;
  decltype(&::XGBoosterCreate) booster_create = nullptr;
  decltype(&::XGBoosterFree) booster_free = nullptr;
  decltype(&::XGBoosterSetParam) booster_set_param = nullptr;
  decltype(&::XGBoosterUpdateOneIter) booster_update_one_iter = nullptr;
  decltype(&::XGBoosterSaveModelToBuffer) booster_save_model_to_buffer = nullptr;
  decltype(&::XGBoosterLoadModelFromBuffer) booster_load_model_from_buffer = nullptr;
  decltype(&::XGBoosterFeatureScore) booster_feature_score = nullptr;
};

/// Loads the library once (thread-safe) and returns its functions. Throws Error naming the
/// library and dlopen's reason when it or one of the functions cannot be found.
[[nodiscard]] const XgboostLibrary& xgboost_library();

}  // namespace cnnperf::ml_detail
