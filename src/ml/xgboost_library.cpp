// SPDX-License-Identifier: Apache-2.0
#include "xgboost_library.hpp"

#include <dlfcn.h>

#include <cstdlib>
#include <string>

#include "cnnperf/common/error.hpp"

namespace cnnperf::ml_detail {
namespace {

// CNNPERF_XGBOOST_SONAME (e.g. "libxgboost.so.0") and CNNPERF_XGBOOST_PATH (the library found
// at configure time) come from CMake.
void* open_library(std::string& why) {
  for (const char* name : {CNNPERF_XGBOOST_SONAME, CNNPERF_XGBOOST_PATH}) {
    if (void* handle = dlopen(name, RTLD_NOW | RTLD_LOCAL); handle != nullptr) return handle;
    const char* error = dlerror();
    why += std::string(why.empty() ? "" : "; ") + (error != nullptr ? error : name);
  }
  return nullptr;
}

template <typename Fn>
void resolve(void* handle, const char* symbol, Fn& out) {
  out = reinterpret_cast<Fn>(dlsym(handle, symbol));
  if (out == nullptr) {
    throw Error(std::string("XGBoost library ") + CNNPERF_XGBOOST_SONAME + " has no " + symbol +
                " (cnnperf needs XGBoost 1.7's C API)");
  }
}

XgboostLibrary load() {
  // libgomp, which XGBoost loads, reads OMP_WAIT_POLICY once, when it is loaded. Unset, each of
  // its threads spins (GOMP_SPINCOUNT 300,000) after every parallel region; on a busy machine
  // those spins take the cores from the threads that have work, and training, thousands of
  // small parallel regions, runs an order of magnitude slower (docs/benchmarks.md, "train:
  // OpenMP threads"). A user's own OMP_WAIT_POLICY or GOMP_SPINCOUNT stands.
  if (std::getenv("OMP_WAIT_POLICY") == nullptr && std::getenv("GOMP_SPINCOUNT") == nullptr) {
    ::setenv("OMP_WAIT_POLICY", "PASSIVE", 0);
  }
  std::string why;
  void* handle = open_library(why);  // kept loaded for the life of the process
  if (handle == nullptr) {
    throw Error(std::string("training with XGBoost needs ") + CNNPERF_XGBOOST_SONAME +
                ", which could not be loaded: " + why + " (Debian: apt-get install libxgboost0)");
  }
  XgboostLibrary lib;
  resolve(handle, "XGBGetLastError", lib.get_last_error);
  resolve(handle, "XGBoostVersion", lib.version);
  resolve(handle, "XGDMatrixCreateFromMat", lib.dmatrix_create_from_mat);
  resolve(handle, "XGDMatrixFree", lib.dmatrix_free);
  resolve(handle, "XGDMatrixSetFloatInfo", lib.dmatrix_set_float_info);
  resolve(handle, "XGBoosterCreate", lib.booster_create);
  resolve(handle, "XGBoosterFree", lib.booster_free);
  resolve(handle, "XGBoosterSetParam", lib.booster_set_param);
  resolve(handle, "XGBoosterUpdateOneIter", lib.booster_update_one_iter);
  resolve(handle, "XGBoosterSaveModelToBuffer", lib.booster_save_model_to_buffer);
  resolve(handle, "XGBoosterLoadModelFromBuffer", lib.booster_load_model_from_buffer);
  resolve(handle, "XGBoosterFeatureScore", lib.booster_feature_score);
  return lib;
}

}  // namespace

const XgboostLibrary& xgboost_library() {
  static const XgboostLibrary lib = load();  // a failed load throws, and is retried next call
  return lib;
}

}  // namespace cnnperf::ml_detail
