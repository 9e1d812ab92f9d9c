// SPDX-License-Identifier: Apache-2.0
// `cnnperf predict --runtime pytorch-compile|tensorrt` and `--precision bf16|int8`, and
// `train e2e --runtime`, as a user runs them.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "cli_runner.hpp"
#include "cnnperf/common/io.hpp"

namespace cnnperf {
namespace {

using cli_test::run_cnnperf;
using cli_test::RunResult;
using cli_test::temp_dir;

using cli_test::json_of;

TEST(RuntimeCli, EveryRuntimeRunsAZooNetwork) {
  for (const std::string runtime : {"cudnn", "pytorch", "pytorch-compile", "tensorrt"}) {
    const auto doc =
        json_of("predict --net resnet50 --gpu a100 --batch 8 --format json --runtime " + runtime);
    ASSERT_TRUE(doc.contains("total")) << runtime;
    EXPECT_EQ(doc["runtime"], runtime);
    const auto& t = doc["total"];
    EXPECT_GT(t["latency_ms"].get<double>(), 0.0) << runtime;
    EXPECT_NEAR(t["kernel_ms"].get<double>() + t["kernel_scale_ms"].get<double>() +
                    t["overhead_ms"].get<double>(),
                t["latency_ms"].get<double>(), 1e-9)
        << runtime;
    EXPECT_GE(t["overhead_ms"].get<double>(), 0.0) << runtime;
    if (runtime == "cudnn") {
      EXPECT_EQ(t["kernel_scale_ms"].get<double>(), 0.0);
    }
  }
  // TensorRT prices an INT8 engine where the GPU has the rate; fusing leaves fewer kernels.
  const auto trt = json_of(
      "predict --net resnet50 --gpu a100 --batch 8 --format json --runtime "
      "tensorrt");
  EXPECT_EQ(trt["precision"], "int8");
  int fused = 0;
  for (const auto& layer : trt["layers"]) fused += layer["fused_into"].is_string() ? 1 : 0;
  EXPECT_GT(fused, 50);  // resnet50's batch norms and activations
}

// A direct library call's step is its kernels and gaps: the table names no eager term (the
// eager fit's kernel-time scale, step scale, host issue time), and a step whose weights stay
// in L2 adds nothing, not a rounding residue below 0.
TEST(RuntimeCli, ACudnnStepNamesNoEagerTermAndAddsNoOverhead) {
  const RunResult table = run_cnnperf("predict --net resnet50 --gpu a100 --runtime cudnn");
  ASSERT_EQ(table.exit_code, 0) << table.err;
  for (const std::string eager : {"kernel time x", "step x", "host-bound", "per-op overlap"}) {
    EXPECT_EQ(table.out.find(eager), std::string::npos) << eager << "\n" << table.out;
  }
  // The same GPU under eager PyTorch at batch 1 is host-bound, and says so.
  const RunResult eager = run_cnnperf("predict --net resnet50 --gpu a100 --runtime pytorch");
  ASSERT_EQ(eager.exit_code, 0) << eager.err;
  EXPECT_NE(eager.out.find("host-bound"), std::string::npos) << eager.out;
  const auto resident =
      json_of("predict --net resnet50 --gpu h100 --runtime cudnn --precision int8 --format json");
  const auto& t = resident["total"];
  ASSERT_LT(t["kernel_scale_ms"].get<double>(), 0.0);  // the L2-resident step
  EXPECT_EQ(t["overhead_ms"].get<double>(), 0.0);
}

// train e2e fits the runtimes that have a fitted step: an unknown one is told those three,
// cudnn why it has none.
TEST(RuntimeCli, TrainE2eNamesTheRuntimesItFits) {
  const RunResult unknown = run_cnnperf("train e2e --runtime foo --data x.csv");
  EXPECT_EQ(unknown.exit_code, 2);
  EXPECT_NE(unknown.err.find("expected pytorch, pytorch-compile or tensorrt, got 'foo'"),
            std::string::npos)
      << unknown.err;
  const RunResult cudnn = run_cnnperf("train e2e --runtime cudnn --data x.csv");
  EXPECT_EQ(cudnn.exit_code, 2);
  EXPECT_NE(cudnn.err.find("cudnn has no fitted overhead"), std::string::npos) << cudnn.err;
}

TEST(RuntimeCli, ANonFusedLayerHasTheSameKernelTimeUnderEveryRuntime) {
  const std::string args =
      "predict --net resnet50 --gpu a100 --batch 8 --precision fp16 --format json --runtime ";
  const auto eager = json_of(args + "pytorch");
  for (const std::string runtime : {"cudnn", "pytorch-compile", "tensorrt"}) {
    // The channels-last runtimes skip the NCHW transposes of the tensor-core convolutions
    // that are not 1x1 stride-1 GEMMs: those are faster there, every other layer the same.
    const bool channels_last = runtime == "pytorch-compile" || runtime == "tensorrt";
    int transposed = 0;
    const auto other = json_of(args + runtime);
    ASSERT_EQ(other["layers"].size(), eager["layers"].size()) << runtime;
    int compared = 0;
    for (std::size_t i = 0; i < eager["layers"].size(); ++i) {
      const auto& l = other["layers"][i];
      if (l["fused_into"].is_string()) {
        EXPECT_EQ(l["kernel_ms"].get<double>(), 0.0) << runtime << " " << l["name"];
        continue;
      }
      const double ms = l["kernel_ms"].get<double>();
      const double eager_ms = eager["layers"][i]["kernel_ms"].get<double>();
      const std::string name = l["name"].get<std::string>();
      const auto& shape = eager["layers"][i];
      const bool gemm_like_1x1 = shape["kernel_h"] == 1 && shape["stride_h"] == 1;
      const bool tensor_cores = shape["c_in"].get<int>() % 8 == 0;  // fp16: not the RGB stem
      if (channels_last && shape["op"] == "conv2d" && tensor_cores && !gemm_like_1x1) {
        EXPECT_LT(ms, eager_ms) << runtime << " " << name;
        ++transposed;
      } else {
        EXPECT_DOUBLE_EQ(ms, eager_ms) << runtime << " " << name;
      }
      ++compared;
    }
    EXPECT_GT(compared, 50) << runtime;                        // every convolution at least
    EXPECT_EQ(transposed, channels_last ? 19 : 0) << runtime;  // 16 3x3s and 3 strided 1x1s
  }
}

TEST(RuntimeCli, LayoutChoosesWhetherConvolutionsPayForTransposes) {
  const std::string args =
      "predict --net resnet50 --gpu a100 --batch 32 --precision fp16 "
      "--format json";
  const auto plain = json_of(args);
  const auto nchw = json_of(args + " --layout nchw");
  const auto nhwc = json_of(args + " --layout nhwc");
  EXPECT_DOUBLE_EQ(nchw["total"]["kernel_ms"].get<double>(),
                   plain["total"]["kernel_ms"].get<double>());  // NCHW is PyTorch's default
  EXPECT_LT(nhwc["total"]["kernel_ms"].get<double>(), nchw["total"]["kernel_ms"].get<double>());
  // Channels-last runtimes run NHWC whatever is asked.
  const auto compiled = json_of(args + " --runtime pytorch-compile");
  EXPECT_DOUBLE_EQ(json_of(args + " --runtime pytorch-compile --layout nchw")["total"]["kernel_ms"]
                       .get<double>(),
                   compiled["total"]["kernel_ms"].get<double>());
  // --layers: the option overrides every row's layout; without it each row keeps its own.
  const std::filesystem::path rows = temp_dir() / "r18_fp16.csv";
  const RunResult r = run_cnnperf(
      "nets show resnet18 --batch 8 --precision fp16 --format csv -o \"" + rows.string() + "\"");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const std::string layers = "predict --layers \"" + rows.string() + "\" --gpu a100 --format json";
  const auto rows_nchw = json_of(layers);
  const auto rows_nhwc = json_of(layers + " --layout nhwc");
  ASSERT_EQ(rows_nchw["rows"].size(), rows_nhwc["rows"].size());
  int faster = 0;
  for (std::size_t i = 0; i < rows_nchw["rows"].size(); ++i) {
    const double a = rows_nchw["rows"][i]["kernel_ms"].get<double>();
    const double b = rows_nhwc["rows"][i]["kernel_ms"].get<double>();
    EXPECT_LE(b, a) << i;
    faster += b < a ? 1 : 0;
  }
  EXPECT_GT(faster, 0);
  EXPECT_EQ(run_cnnperf(args + " --layout chwn").exit_code, 2);
}

TEST(RuntimeCli, InferenceOnlyRuntimesRefuseTraining) {
  for (const std::string runtime : {"tensorrt", "pytorch-compile"}) {
    const RunResult r =
        run_cnnperf("predict --net resnet50 --gpu a100 --mode training --runtime " + runtime);
    EXPECT_EQ(r.exit_code, 2) << runtime << ": " << r.err;
    EXPECT_NE(r.err.find("inference only"), std::string::npos) << r.err;
  }
}

TEST(RuntimeCli, APrecisionTheGpuHasNoRateForIsExit2NamingWhatItLacks) {
  RunResult r = run_cnnperf("predict --net resnet18 --gpu v100 --precision int8");
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_NE(r.err.find("v100"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("tensor_int8_tops"), std::string::npos) << r.err;
  r = run_cnnperf("predict --net resnet18 --gpu t4 --precision bf16");
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_NE(r.err.find("tensor_bf16_tflops"), std::string::npos) << r.err;
  // Where the database has the rates, both run, and int8 is faster than fp16.
  const auto fp16 = json_of(
      "predict --net resnet50 --gpu a100 --batch 64 --precision fp16 "
      "--format json --runtime cudnn");
  const auto int8 = json_of(
      "predict --net resnet50 --gpu a100 --batch 64 --precision int8 "
      "--format json --runtime cudnn");
  const auto bf16 = json_of(
      "predict --net resnet50 --gpu a100 --batch 64 --precision bf16 "
      "--format json --runtime cudnn");
  EXPECT_LT(int8["total"]["kernel_ms"].get<double>(), fp16["total"]["kernel_ms"].get<double>());
  EXPECT_GT(bf16["total"]["kernel_ms"].get<double>(), 0.0);
}

TEST(RuntimeCli, TensorrtWithoutInt8RatePricesFp16AndSaysSo) {
  const RunResult r =
      run_cnnperf("predict --net resnet50 --gpu v100 --runtime tensorrt --format json");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto doc = nlohmann::json::parse(r.out);
  EXPECT_EQ(doc["precision"], "fp16");
  EXPECT_NE(doc["warnings"].dump().find("no INT8"), std::string::npos) << doc["warnings"];
}

TEST(RuntimeCli, LayerRowsUnderTensorrtKeepTheirKernelTime) {
  const std::filesystem::path csv = temp_dir() / "r18_int8.csv";
  RunResult r = run_cnnperf("nets show resnet18 --batch 2 --precision int8 --format csv -o \"" +
                            csv.string() + "\"");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  // TensorRT runs convolutions channels-last: the same rows read as NHWC under eager PyTorch
  // have no layout transposes either.
  const std::filesystem::path nhwc = temp_dir() / "r18_int8_nhwc.csv";
  {
    std::ifstream in(csv);
    std::ofstream out(nhwc);
    std::string line;
    bool header = true;
    while (std::getline(in, line)) {
      out << line << (header ? ",layout" : ",nhwc") << "\n";
      header = false;
    }
  }
  const auto trt = json_of("predict --layers \"" + csv.string() +
                           "\" --gpu a100 --format json --runtime tensorrt");
  const auto eager = json_of("predict --layers \"" + nhwc.string() +
                             "\" --gpu a100 --format json --runtime pytorch");
  ASSERT_EQ(trt["rows"].size(), eager["rows"].size());
  for (std::size_t i = 0; i < trt["rows"].size(); ++i) {
    EXPECT_DOUBLE_EQ(trt["rows"][i]["kernel_ms"].get<double>(),
                     eager["rows"][i]["kernel_ms"].get<double>())
        << i;
  }
}

TEST(RuntimeCli, TrainE2eFitsTheTensorrtOverheadLeaveOneGpuOut) {
  const std::filesystem::path out = temp_dir() / "trt_overhead.json";
  const auto report = json_of(
      "train e2e --runtime tensorrt --data datasets/e2e_mlperf_inference.csv.gz --format json "
      "--out \"" +
      out.string() + "\"");
  ASSERT_TRUE(report.contains("report"));
  EXPECT_EQ(report["runtime"], "tensorrt");
  EXPECT_GE(report["report"]["gpus"].size(), 8U);
  EXPECT_TRUE(report["report"]["leave-gpu-out"]["overall"]["mape_pct"].is_number());
  const auto file = nlohmann::json::parse(read_text_file(out.string()));
  EXPECT_EQ(file["kind"], "tensorrt_overhead");
  EXPECT_EQ(file["schema_version"], 1);
  EXPECT_NE(file["provenance"]["command"].get<std::string>().find("--runtime tensorrt"),
            std::string::npos);
  // The eager fit takes no --runtime it cannot fit.
  const RunResult bad =
      run_cnnperf("train e2e --runtime cudnn --data datasets/e2e_mlperf_inference.csv.gz");
  EXPECT_EQ(bad.exit_code, 2) << bad.err;
}

// The file `train e2e --runtime tensorrt --out` writes is what predict then uses for that
// runtime's steps, its step table included; the same fit as the bundled file predicts the
// same step, another one another step.
TEST(RuntimeCli, PredictUsesARuntimeOverheadFileOfTheUsersOwnFit) {
  const std::filesystem::path own = temp_dir() / "own_trt_overhead.json";
  ASSERT_EQ(run_cnnperf("train e2e --runtime tensorrt --data "
                        "datasets/e2e_mlperf_inference.csv.gz --out \"" +
                        own.string() + "\"")
                .exit_code,
            0);
  const std::string args = "predict --net resnet50 --gpu a100 --batch 8 --format json ";
  const auto bundled = json_of(args + "--runtime tensorrt");
  const auto same =
      json_of(args + "--runtime tensorrt --runtime-overhead \"" + own.string() + "\"");
  EXPECT_DOUBLE_EQ(same["total"]["latency_ms"].get<double>(),
                   bundled["total"]["latency_ms"].get<double>());
  EXPECT_NE(same["intervals"]["source"].get<std::string>().find(own.filename().string()),
            std::string::npos)
      << same["intervals"].dump();
  // Twice the kernel-time scale: a slower step, so the file's terms are the ones applied.
  auto doc = nlohmann::json::parse(read_text_file(own.string()));
  doc["overhead"]["kernel_time_scale"] = 2 * doc["overhead"]["kernel_time_scale"].get<double>();
  const std::filesystem::path slower = temp_dir() / "slower_trt_overhead.json";
  std::ofstream(slower) << doc.dump();
  const auto scaled =
      json_of(args + "--runtime tensorrt --runtime-overhead \"" + slower.string() + "\"");
  EXPECT_GT(scaled["total"]["latency_ms"].get<double>(),
            bundled["total"]["latency_ms"].get<double>());
  // Under a runtime list only its runtime's steps take it.
  const auto sweep =
      json_of(args + "--runtime pytorch,tensorrt --runtime-overhead \"" + slower.string() + "\"");
  ASSERT_EQ(sweep["rows"].size(), 2U);
  EXPECT_DOUBLE_EQ(sweep["rows"][0]["latency_ms"].get<double>(),
                   json_of(args + "--runtime pytorch")["total"]["latency_ms"].get<double>());
  EXPECT_DOUBLE_EQ(sweep["rows"][1]["latency_ms"].get<double>(),
                   scaled["total"]["latency_ms"].get<double>());
  // A runtime not predicted, an eager file, or a learned model beside it: exit 2.
  for (const auto& [extra, said] : std::vector<std::pair<std::string, std::string>>{
           {"--runtime pytorch --runtime-overhead \"" + own.string() + "\"",
            "is a tensorrt overhead; expected --runtime tensorrt"},
           {"--runtime tensorrt --runtime-overhead models/eager_overhead.json",
            "kind: expected \"compile_overhead\" or \"tensorrt_overhead\", got \"eager_overhead\""},
           {"--runtime tensorrt --model models/cnnperf_default.json --runtime-overhead \"" +
                own.string() + "\"",
            "--runtime-overhead and --model"}}) {
    const RunResult r = run_cnnperf(args + extra);
    EXPECT_EQ(r.exit_code, 2) << extra << "\n" << r.err;
    EXPECT_NE(r.err.find(said), std::string::npos) << r.err;
  }
}

}  // namespace
}  // namespace cnnperf
