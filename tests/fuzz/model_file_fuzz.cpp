// SPDX-License-Identifier: Apache-2.0
// libFuzzer target: the learned model file, through both readers - the JSON one (from_json) and
// the fast loader (LearnedModel::load, which maps the file and reads boosters from its bytes) -
// then one prediction per op family, since a loaded model must be safe to predict with.
#include <memory>
#include <vector>

#include "cnnperf/common/json_io.hpp"
#include "cnnperf/ml/learned_model.hpp"
#include "cnnperf/model/gpu_spec.hpp"
#include "cnnperf/model/layer_io.hpp"
#include "fuzz_input.hpp"

namespace {

const std::vector<cnnperf::Layer>& probe_layers() {
  // One layer of each family a model file may hold (a fixed input, not a measurement).
  static const std::vector<cnnperf::Layer> layers =
      cnnperf::parse_layers_csv(
          "op,batch,c_in,h_in,w_in,c_out,kernel_h,kernel_w,stride_h,stride_w,pad_h,pad_w\n"
          "conv2d,2,16,8,8,32,3,3,1,1,1,1\n"
          "linear,2,16,1,1,32,1,1,1,1,0,0\n"
          "max_pool,2,16,8,8,16,3,3,2,2,0,0\n"
          "batch_norm,2,16,8,8,16,1,1,1,1,0,0\n"
          "relu,2,16,8,8,16,1,1,1,1,0,0\n"
          "add,2,16,8,8,16,1,1,1,1,0,0\n",
          "probe.csv")
          .layers;
  return layers;
}

void predict_with(const cnnperf::LearnedModel& model) {
  const auto& gpus = cnnperf::GpuDatabase::bundled().all();
  // A GPU the model was likely trained on and one it was not take different paths.
  for (const auto* gpu : {&gpus.front(), &gpus.back()}) {
    (void)model.predict_layers(probe_layers(), *gpu);
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const auto text = cnnperf::fuzz::as_text(data, size);
  cnnperf::fuzz::expect_parse_or_input_error([&] {
    const auto model =
        cnnperf::LearnedModel::from_json(cnnperf::parse_json_text(text, "fuzz.json"), "fuzz.json");
    predict_with(*model);
  });
  const auto& path = cnnperf::fuzz::input_file(text, ".json");
  cnnperf::fuzz::expect_parse_or_input_error([&] {
    const auto model = cnnperf::LearnedModel::load(path);
    predict_with(*model);
  });
  cnnperf::fuzz::expect_parse_or_input_error([&] {
    const auto model = cnnperf::LearnedModel::load(path, true);
    predict_with(*model);
  });
  return 0;
}
