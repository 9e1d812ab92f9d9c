// SPDX-License-Identifier: Apache-2.0
// End-to-end: `cnnperf predict` with power caps and budgets, `train power` and
// `validate --power`, as a user runs them.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <map>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "cli_runner.hpp"
#include "cnnperf/common/io.hpp"
#include "cnnperf/model/layer.hpp"
#include "cnnperf/model/network.hpp"
#include "cnnperf/model/zoo.hpp"

namespace cnnperf {
namespace {

using cli_test::run_cnnperf;
using cli_test::RunResult;
using cli_test::source_file;
using cli_test::temp_dir;

// The JSON a successful `cnnperf ARGS` prints.
nlohmann::json json_of(const std::string& args) {
  const RunResult r = run_cnnperf(args);
  EXPECT_EQ(r.exit_code, 0) << args << "\n" << r.err;
  return nlohmann::json::parse(r.out);
}

nlohmann::json predict_json(const std::string& extra) {
  const RunResult r = run_cnnperf(
      "predict --net resnet50 --gpu v100-pcie-16gb --batch 64 --mode training "
      "--format json " +
      extra);
  EXPECT_EQ(r.exit_code, 0) << r.err;
  return nlohmann::json::parse(r.out);
}

TEST(PredictCli, PowerLimitSlowsTheStepAndKeepsThePowerUnderTheCap) {
  const auto free = predict_json("");
  const auto capped = predict_json("--power-limit 150");
  EXPECT_FALSE(free.contains("power_cap"));
  ASSERT_TRUE(capped.contains("power_cap"));
  EXPECT_TRUE(capped["power_cap"]["binding"].get<bool>());
  EXPECT_LE(capped["total"]["avg_power_w"].get<double>(), 150.0 + 0.5);
  EXPECT_GT(capped["total"]["latency_ms"].get<double>(), free["total"]["latency_ms"].get<double>());
  EXPECT_NEAR(capped["power_cap"]["uncapped_latency_ms"].get<double>(),
              free["total"]["latency_ms"].get<double>(), 1e-9);
  EXPECT_NE(capped["power_model"].get<std::string>().find("power_zeus.csv"), std::string::npos);
}

// A gate on a prediction that is not a number must not pass: an out-of-range host time per op
// made latency_ms NaN, which compares false against every budget (exit 0).
TEST(PredictCli, AHostTimeOutOfRangeIsExitTwoNotAPassedGate) {
  RunResult r =
      run_cnnperf("predict --net resnet50 --gpu a100 --host-ms-per-op 1e308 --max-latency-ms 5");
  EXPECT_EQ(r.exit_code, 2) << r.out;
  EXPECT_NE(r.err.find("--host-ms-per-op"), std::string::npos) << r.err;
  EXPECT_EQ(r.out.find("nan"), std::string::npos) << r.out;
  r = run_cnnperf("plan --gpus a100,t4 --nets resnet18 --host-ms-per-op 1e308");
  EXPECT_EQ(r.exit_code, 2) << r.out;
  EXPECT_NE(r.err.find("--host-ms-per-op"), std::string::npos) << r.err;
  // The bound itself still predicts, finitely.
  r = run_cnnperf("predict --net resnet18 --gpu a100 --host-ms-per-op 1000 --format json");
  EXPECT_EQ(r.exit_code, 0) << r.err;
  // No number turned null; an interval is null by design where none covers it (pools, and the
  // step with --host-ms-per-op), and fused_into where a layer is not fused.
  auto doc = nlohmann::json::parse(r.out);
  for (auto* o : {&doc["total"]}) {
    o->erase("latency_ms_lo");
    o->erase("latency_ms_hi");
  }
  for (auto& layer : doc["layers"]) {
    layer.erase("latency_ms_lo");
    layer.erase("latency_ms_hi");
    layer.erase("fused_into");  // null: the layer runs its own kernels under eager PyTorch
  }
  EXPECT_EQ(doc.dump().find("null"), std::string::npos) << r.out;
}

TEST(PredictCli, PowerLimitAtIdleOrOnLayerRowsIsExitTwo) {
  RunResult r = run_cnnperf("predict --net resnet50 --gpu v100 --power-limit 10");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("--power-limit"), std::string::npos) << r.err;
  const auto csv = temp_dir() / "layers.csv";
  std::ofstream(csv)
      << "op,batch,c_in,h_in,w_in,c_out,kernel_h,kernel_w\nconv2d,1,64,56,56,64,3,3\n";
  r = run_cnnperf("predict --layers \"" + csv.string() + "\" --gpu v100 --power-limit 150");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("--net"), std::string::npos) << r.err;
}

TEST(PredictCli, NumGpusPredictsADataParallelStepWithTheBundledCalibration) {
  const auto json_for = [](const std::string& extra) {
    const RunResult r = run_cnnperf(
        "predict --net resnet50 --gpu titan-rtx --batch 12 --mode training --format json " + extra);
    EXPECT_EQ(r.exit_code, 0) << r.err;
    return nlohmann::json::parse(r.out);
  };
  const auto one = json_for("");
  const auto four = json_for("--num-gpus 4");
  EXPECT_EQ(one["num_gpus"].get<int>(), 1);
  EXPECT_EQ(four["num_gpus"].get<int>(), 4);
  // pytorch-gpu-benchmark's TITAN RTX ran these steps 2.1x slower on four GPUs than on one.
  const double ratio =
      four["total"]["latency_ms"].get<double>() / one["total"]["latency_ms"].get<double>();
  EXPECT_GT(ratio, 1.5);
  EXPECT_LT(ratio, 3.5);
  EXPECT_GT(four["eager_overhead"]["data_parallel"]["rows"].get<int>(), 0);
  // The rows have 2 to 4 GPUs: 4 is inside them, 8 extrapolates and says so.
  EXPECT_EQ(four["eager_overhead"]["data_parallel"]["max_num_gpus"].get<int>(), 4);
  const auto said = [](const nlohmann::json& doc) {
    return std::count_if(doc["warnings"].begin(), doc["warnings"].end(), [](const auto& w) {
      return w.template get<std::string>().find("fitted on rows of at most 4 GPUs") !=
             std::string::npos;
    });
  };
  EXPECT_EQ(said(four), 0);
  EXPECT_EQ(said(json_for("--num-gpus 8")), 1);
  const RunResult table =
      run_cnnperf("predict --net resnet50 --gpu titan-rtx --batch 12 --num-gpus 2");
  EXPECT_EQ(table.exit_code, 0) << table.err;
  EXPECT_NE(table.out.find("nn.DataParallel on 2 GPUs"), std::string::npos) << table.out;
}

TEST(PredictCli, NasNetworksUseTheOverheadCalibratedOnHelpsMachines) {
  const std::string cell =
      "'nb201:|nor_conv_3x3~0|+|none~0|nor_conv_1x1~1|+|skip_connect~0|nor_conv_1x1~1|none~2|'";
  const RunResult r = run_cnnperf("predict --net " + cell +
                                  " --gpu \"GeForce GTX 1080 Ti\" --batch 32 --format json");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j["network_source"].get<std::string>(), "nas-bench-201");
  EXPECT_NE(j["eager_overhead"]["source"].get<std::string>().find("e2e_help_nas.csv.gz"),
            std::string::npos);
  // HELP's batch-32 NB-201 steps on its Pascal GPUs take 3-18 ms, mostly issuing ops.
  const double ms = j["total"]["latency_ms"].get<double>();
  EXPECT_GT(ms, 3.0);
  EXPECT_LT(ms, 20.0);
  EXPECT_GT(ms, 2 * j["total"]["kernel_ms"].get<double>());
  const RunResult bad = run_cnnperf("predict --gpu v100 --net 'fbnet:skip k9_e1'");
  EXPECT_EQ(bad.exit_code, 2);
  EXPECT_NE(bad.err.find("unknown block 'k9_e1'"), std::string::npos) << bad.err;
}

TEST(PredictCli, NumGpusOutsideOneToSixteenOrWithLayersOrACapIsExitTwo) {
  RunResult r = run_cnnperf("predict --net resnet50 --gpu v100 --num-gpus 0");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("--num-gpus"), std::string::npos) << r.err;
  r = run_cnnperf("predict --net resnet50 --gpu v100 --num-gpus 2 --power-limit 150");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("--power-limit with --num-gpus"), std::string::npos) << r.err;
  const auto csv = temp_dir() / "layers_num_gpus.csv";
  std::ofstream(csv) << "op,batch,c_in,c_out\nlinear,8,512,512\n";
  r = run_cnnperf("predict --layers \"" + csv.string() + "\" --gpu v100 --num-gpus 2");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("--num-gpus"), std::string::npos) << r.err;
}

// `-o` naming the input would replace it with the output: exit 2, the input intact.
TEST(PredictCli, AnOutputThatIsAnInputIsExitTwoAndLeavesTheInput) {
  const auto csv = temp_dir() / "layers_same.csv";
  const std::string rows = "op,batch,c_in,c_out\nlinear,8,512,512\n";
  std::ofstream(csv) << rows;
  const std::string path = "\"" + csv.string() + "\"";
  RunResult r = run_cnnperf("predict --layers " + path + " --gpu v100 -o " + path);
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("is also an input of this command"), std::string::npos) << r.err;
  std::ifstream in(csv);
  const std::string kept((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  EXPECT_EQ(kept, rows);
  r = run_cnnperf("report " + path + " -o " + path);
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("is also an input of this command"), std::string::npos) << r.err;
}

// DESIGN: --layers output is every input column unchanged and in order, then the predictions;
// the JSON rows came out with their keys sorted.
TEST(PredictCli, LayersJsonRowsKeepTheInputColumnOrder) {
  const auto csv = temp_dir() / "layers_order.csv";
  std::ofstream(csv) << "op,c_out,zeta,batch,c_in,alpha\nlinear,512,z,8,256,a\n";
  const RunResult r =
      run_cnnperf("predict --layers \"" + csv.string() + "\" --gpu v100 --format json");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto doc = nlohmann::ordered_json::parse(r.out);
  ASSERT_EQ(doc.at("rows").size(), 1U);
  std::vector<std::string> keys;
  for (const auto& item : doc.at("rows").at(0).items()) keys.push_back(item.key());
  const std::vector<std::string> expected = {
      "op",          "c_out",       "zeta",           "batch",         "c_in",          "alpha",
      "kernel_ms",   "overhead_ms", "latency_ms",     "latency_ms_lo", "latency_ms_hi", "energy_mj",
      "avg_power_w", "roofline_ms", "in_distribution"};
  EXPECT_EQ(keys, expected);
  EXPECT_EQ(doc.at("rows").at(0).at("zeta"), "z");
}

// Network options on --layers rows were silently ignored (a budget never fired).
TEST(PredictCli, NetworkOptionsOnLayerRowsAreExitTwo) {
  const auto csv = temp_dir() / "layers_opts.csv";
  std::ofstream(csv)
      << "op,batch,c_in,h_in,w_in,c_out,kernel_h,kernel_w\nconv2d,1,64,56,56,64,3,3\n";
  const std::string base = "predict --layers \"" + csv.string() + "\" --gpu v100 ";
  for (const std::string flag :
       {"--max-latency-ms 0.001", "--max-energy-j 1", "--batch 8", "--input-size 32x32",
        "--mode training", "--host-ms-per-op 0.01", "--input-on-gpu"}) {
    const RunResult r = run_cnnperf(base + flag);
    EXPECT_EQ(r.exit_code, 2) << flag;
    EXPECT_NE(r.err.find(flag.substr(0, flag.find(' ')) + ": applies to --net predictions"),
              std::string::npos)
        << r.err;
  }
  RunResult r = run_cnnperf(base + "--analytical --model models/cnnperf_default.json");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("--analytical and --model"), std::string::npos) << r.err;
  // CSV unless a table is asked for (the default --format is per mode).
  r = run_cnnperf(base + "--analytical");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out.rfind("op,batch,c_in,", 0), 0U) << r.out;
  r = run_cnnperf(base + "--analytical --format table");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out.find(','), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("in_distribution"), std::string::npos) << r.out;
}

// The memory lower bound: ResNet-50's 25,557,032 fp32 weights (x2 in training) plus its largest
// layer's tensors, a residual add at 56x56x256 reading two and writing one (3 x 802,816).
TEST(PredictCli, MinMemoryIsWeightsPlusTheLargestLayerAndWarnsWhenOverTheGpu) {
  RunResult r = run_cnnperf("predict --net resnet50 --gpu t4 --format json");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NEAR(nlohmann::json::parse(r.out)["total"]["min_memory_gb"].get<double>(),
              (25557032.0 + 3 * 802816.0) * 4 / 1e9, 1e-12);
  r = run_cnnperf("predict --net resnet50 --gpu t4 --mode training --format json");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NEAR(nlohmann::json::parse(r.out)["total"]["min_memory_gb"].get<double>(),
              (2 * 25557032.0 + 3 * 802816.0) * 4 / 1e9, 1e-12);
  // At batch 256 a training step keeps more: every batchnorm input (a convolution's output,
  // kept for the gradients) with the weights, 11.5 GB; the bound was 2.7 GB before.
  NetworkOptions big;
  big.batch = 256;
  double bn_inputs = 0;
  for (const Layer& layer : build_zoo_network("resnet50", big).layers) {
    if (layer.op == Op::kBatchNorm) bn_inputs += static_cast<double>(layer.input_elements());
  }
  EXPECT_GT(bn_inputs, 256 * 3 * 802816.0);  // more than a few layers' worth
  r = run_cnnperf("predict --net resnet50 --gpu v100 --mode training --batch 256 --format json");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NEAR(nlohmann::json::parse(r.out)["total"]["min_memory_gb"].get<double>(),
              (25557032.0 + bn_inputs) * 4 / 1e9, 1e-9);
  // VGG-16 at batch 1024: conv1_2 alone reads and writes 2 x 64 x 224 x 224 x 1024 floats.
  r = run_cnnperf("predict --net vgg16 --gpu t4 --batch 1024 --format json");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto doc = nlohmann::json::parse(r.out);
  EXPECT_GT(doc["total"]["min_memory_gb"].get<double>(), 2 * 64 * 224 * 224 * 1024.0 * 4 / 1e9);
  bool warned = false;
  for (const auto& w : doc["warnings"]) {
    warned = warned || w.get<std::string>().rfind("out of memory: the step needs at least", 0) == 0;
  }
  EXPECT_TRUE(warned) << doc["warnings"];
  r = run_cnnperf(
      "plan --nets vgg16 --gpus t4,a100-sxm4-80gb --batch 1024 --analytical --format json");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  // Held in a name: a range-for over a member of a temporary document reads freed memory.
  const auto plan = nlohmann::json::parse(r.out);
  for (const auto& c : plan["candidates"]) {
    const bool t4 = c["gpu"] == "t4";
    EXPECT_EQ(c["feasible"].get<bool>(), !t4) << c;
    if (t4) {
      EXPECT_NE(c["infeasible_reason"].get<std::string>().find("needs at least"),
                std::string::npos);
    }
  }
}

// A cap above the board power cannot be set: said, and predicted uncapped.
TEST(PredictCli, APowerCapAboveTheBoardPowerIsSaidAndNotBinding) {
  const RunResult r =
      run_cnnperf("predict --net resnet18 --gpu t4 --power-limit 1000 --format json");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto doc = nlohmann::json::parse(r.out);
  EXPECT_FALSE(doc["power_cap"]["binding"].get<bool>());
  ASSERT_FALSE(doc["warnings"].empty());
  EXPECT_NE(doc["warnings"][0].get<std::string>().find("above t4's board power (70 W)"),
            std::string::npos)
      << doc["warnings"];
}

// A warning is said once: in the footer of a table on stdout, else on stderr.
TEST(PredictCli, WarningsAreSaidOnce) {
  const std::string args = "predict --net resnet50 --gpu t4 --power-limit 11";
  const std::string text = "below what the model draws at the lowest clock";
  RunResult r = run_cnnperf(args);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("warning: power cap 11 W is " + text), std::string::npos) << r.out;
  EXPECT_EQ(r.err.find(text), std::string::npos) << r.err;
  r = run_cnnperf(args + " --format json");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.err.find(text), std::string::npos) << r.err;
  const auto table = temp_dir() / "warned.txt";
  r = run_cnnperf(args + " -o \"" + table.string() + "\"");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.err.find(text), std::string::npos) << r.err;
  EXPECT_NE(read_text_file(table).find(text), std::string::npos);
}

TEST(PredictCli, LayersWithAGpuColumnRunEachRowOnItsGpu) {
  const auto csv = temp_dir() / "layers_per_gpu.csv";
  std::ofstream(csv) << "op,batch,c_in,h_in,w_in,c_out,kernel_h,kernel_w,pad_h,pad_w,gpu\n"
                        "conv2d,32,256,28,28,256,3,3,1,1,Tesla K80\n"
                        "conv2d,32,256,28,28,256,3,3,1,1,NVIDIA A100-PCIE-40GB\n"
                        "conv2d,32,256,28,28,256,3,3,1,1,Tesla K80\n";
  RunResult r = run_cnnperf("predict --layers \"" + csv.string() + "\" --format json");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto per_row = nlohmann::json::parse(r.out);
  const auto& rows = per_row["rows"];
  ASSERT_EQ(rows.size(), 3U);
  // Same layer: the K80 rows agree with each other and are far slower than the A100 row.
  EXPECT_DOUBLE_EQ(rows[0]["latency_ms"].get<double>(), rows[2]["latency_ms"].get<double>());
  EXPECT_GT(rows[0]["latency_ms"].get<double>(), 3 * rows[1]["latency_ms"].get<double>());
  // And each equals the prediction made with that GPU given for every row.
  r = run_cnnperf("predict --layers \"" + csv.string() + "\" --gpu a100-pcie-40gb --format json");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_DOUBLE_EQ(nlohmann::json::parse(r.out)["rows"][1]["latency_ms"].get<double>(),
                   rows[1]["latency_ms"].get<double>());

  std::ofstream(csv) << "op,batch,c_in,h_in,w_in,c_out,gpu\nrelu,1,64,8,8,64,v100\n"
                        "relu,1,64,8,8,64,rtx9999\n";
  r = run_cnnperf("predict --layers \"" + csv.string() + "\"");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("layers_per_gpu.csv:3: field 'gpu'"), std::string::npos) << r.err;
  std::ofstream(csv) << "op,batch,c_in,h_in,w_in,c_out\nrelu,1,64,8,8,64\n";
  r = run_cnnperf("predict --layers \"" + csv.string() + "\"");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("'gpu' column"), std::string::npos) << r.err;
  EXPECT_EQ(run_cnnperf("predict --net resnet18").exit_code, 2);
}

// in_distribution is against the rows the learned model predicts kernel time from (NeuSight's):
// a V100-SXM2, whose own rows are MLPredict's, lies outside them, and the warning says so
// rather than leaving a trained GPU's layers unexplained.
TEST(PredictCli, TheOutOfRangeWarningNamesTheDataItIsMeasuredAgainst) {
  const RunResult r = run_cnnperf(
      "predict --net resnet50 --gpu v100-sxm2-16gb --model models/cnnperf_default.json");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const std::string all = r.out + r.err;
  EXPECT_NE(all.find("lie outside the model's training ranges"), std::string::npos) << all;
  EXPECT_NE(all.find("the ranges of the neusight rows it learns kernel time from"),
            std::string::npos)
      << all;
  // The analytical default has no training ranges to leave.
  const RunResult analytical = run_cnnperf("predict --net resnet50 --gpu v100-sxm2-16gb");
  ASSERT_EQ(analytical.exit_code, 0) << analytical.err;
  EXPECT_EQ((analytical.out + analytical.err).find("outside the model's training ranges"),
            std::string::npos);
}

// Per layer, `predict --layers` on `nets show`'s rows gives each layer the kernel_ms that
// `predict --net` gives it: one time for one layer, whatever path asked.
void expect_same_kernel_time(const std::string& net, const std::string& gpu,
                             const std::string& extra, const std::string& precision = "fp32") {
  const auto csv = temp_dir() / (net + "_layers.csv");
  RunResult r = run_cnnperf("nets show " + net + " --batch 2 --precision " + precision +
                            " --format csv -o \"" + csv.string() + "\"");
  ASSERT_EQ(r.exit_code, 0) << net << ": " << r.err;
  r = run_cnnperf("predict --layers \"" + csv.string() + "\" --gpu " + gpu + " --format json " +
                  extra);
  ASSERT_EQ(r.exit_code, 0) << net << ": " << r.err;
  // The tool's own rows are valid input: no warning about their source or columns.
  EXPECT_EQ(r.err.find("warn"), std::string::npos) << net << ": " << r.err;
  const auto rows = nlohmann::json::parse(r.out)["rows"];
  r = run_cnnperf("predict --net " + net + " --batch 2 --precision " + precision + " --gpu " + gpu +
                  " --format json " + extra);
  ASSERT_EQ(r.exit_code, 0) << net << ": " << r.err;
  const auto layers = nlohmann::json::parse(r.out)["layers"];
  ASSERT_EQ(rows.size(), layers.size()) << net;
  for (std::size_t i = 0; i < rows.size(); ++i) {
    const double from_rows = rows[i]["kernel_ms"].get<double>();
    const double from_net = layers[i]["kernel_ms"].get<double>();
    EXPECT_NEAR(from_rows, from_net, 1e-9 + 1e-12 * from_net)
        << net << " layer " << i << " (" << layers[i]["name"] << ") on " << gpu << " " << extra;
    EXPECT_NEAR(rows[i]["overhead_ms"].get<double>(), layers[i]["overhead_ms"].get<double>(), 1e-9)
        << net << " layer " << i;
  }
}

TEST(PredictCli, LayersAndNetGiveEveryZooLayerTheSameKernelTime) {
  const RunResult r = run_cnnperf("nets --format json");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto networks = nlohmann::json::parse(r.out)["networks"];
  ASSERT_GT(networks.size(), 40U);
  for (const auto& network : networks) {
    // a100: fp32 convolutions on TF32, which both paths must apply alike.
    expect_same_kernel_time(network["name"].get<std::string>(), "a100", "");
  }
  expect_same_kernel_time("resnet50", "v100", "--runtime cudnn");
  expect_same_kernel_time("mobilenet_v2", "a100", "--no-tf32", "fp16");
  expect_same_kernel_time("vgg11", "a100", "--no-tf32");
  // A learned model gives its own kernel times, the same on both paths.
  expect_same_kernel_time("resnet18", "v100", "--model models/cnnperf_default.json");
}

TEST(PredictCli, TheRuntimeSetsTheOverheadNotTheKernelTime) {
  const std::string args = "predict --net resnet50 --gpu a100 --batch 1 --format json --runtime ";
  const auto eager = json_of(args + "pytorch");
  const auto direct = json_of(args + "cudnn");
  EXPECT_EQ(eager["runtime"], "pytorch");
  EXPECT_EQ(direct["runtime"], "cudnn");
  EXPECT_DOUBLE_EQ(eager["total"]["kernel_ms"].get<double>(),
                   direct["total"]["kernel_ms"].get<double>());
  // Batch 1 on an A100 is host-bound in eager PyTorch; a direct cuDNN caller is not.
  EXPECT_GT(eager["total"]["latency_ms"].get<double>(),
            1.5 * direct["total"]["latency_ms"].get<double>());
  EXPECT_GE(direct["total"]["latency_ms"].get<double>(),
            direct["total"]["kernel_ms"].get<double>());
  for (const auto* doc : {&eager, &direct}) {
    const auto& t = (*doc)["total"];
    EXPECT_NEAR(t["kernel_ms"].get<double>() + t["kernel_scale_ms"].get<double>() +
                    t["overhead_ms"].get<double>(),
                t["latency_ms"].get<double>(), 1e-9);
    EXPECT_GE(t["overhead_ms"].get<double>(), 0);
    for (const auto& layer : (*doc)["layers"]) {
      EXPECT_NEAR(layer["kernel_ms"].get<double>() + layer["overhead_ms"].get<double>(),
                  layer["latency_ms"].get<double>(), 1e-12);
      EXPECT_GE(layer["overhead_ms"].get<double>(), 0.0);
    }
  }
  const RunResult bad = run_cnnperf("predict --net resnet50 --gpu a100 --runtime onnxruntime");
  EXPECT_EQ(bad.exit_code, 2);
  EXPECT_NE(bad.err.find("--runtime"), std::string::npos) << bad.err;
  // PyTorch's own step terms do not apply to a direct cuDNN caller.
  for (const std::string extra : {"--num-gpus 2", "--host-ms-per-op 0.02"}) {
    const RunResult r = run_cnnperf("predict --net resnet50 --gpu a100 --runtime cudnn " + extra);
    EXPECT_EQ(r.exit_code, 2) << extra;
    EXPECT_NE(r.err.find("applies to --runtime pytorch"), std::string::npos) << r.err;
  }
}

TEST(PredictCli, Fp32ConvolutionsUseTf32OnAmpereUnlessNoTf32) {
  auto run = [](const std::string& args) {
    const RunResult r = run_cnnperf("predict --net vgg16 --batch 64 --format json " + args);
    EXPECT_EQ(r.exit_code, 0) << r.err;
    return nlohmann::json::parse(r.out);
  };
  const auto tf32 = run("--gpu a100");
  const auto strict = run("--gpu a100 --no-tf32");
  EXPECT_EQ(tf32["tf32_convolutions"], 13);  // VGG-16's thirteen 3x3 convolutions
  EXPECT_EQ(strict["tf32_convolutions"], 0);
  EXPECT_LT(tf32["total"]["kernel_ms"].get<double>(),
            0.6 * strict["total"]["kernel_ms"].get<double>());
  EXPECT_EQ(run("--gpu v100")["tf32_convolutions"], 0);  // Volta has no TF32
  EXPECT_EQ(run("--gpu a100 --precision fp16")["tf32_convolutions"], 0);
}

TEST(PredictCli, HostTimePerOpSetsTheHostBoundLatency) {
  auto latency = [](const std::string& extra) {
    const RunResult r = run_cnnperf("predict --net mobilenet_v2 --gpu a100 --format json " + extra);
    EXPECT_EQ(r.exit_code, 0) << r.err;
    const auto doc = nlohmann::json::parse(r.out);
    return std::make_pair(doc["total"]["latency_ms"].get<double>(),
                          doc["eager_overhead"]["host_ms_per_op"].get<double>());
  };
  const auto [calibrated_ms, calibrated_host] = latency("");
  const auto [fast_ms, fast_host] = latency("--host-ms-per-op 0.005");
  const auto [slow_ms, slow_host] = latency("--host-ms-per-op 0.2");
  EXPECT_DOUBLE_EQ(fast_host, 0.005);
  EXPECT_DOUBLE_EQ(slow_host, 0.2);
  EXPECT_GT(calibrated_host, 0.005);
  EXPECT_LT(fast_ms, calibrated_ms);
  EXPECT_GT(slow_ms, calibrated_ms);
  EXPECT_EQ(run_cnnperf("predict --net mobilenet_v2 --gpu a100 --host-ms-per-op -1").exit_code, 2);
}

TEST(PredictCli, InputOnGpuDropsExactlyTheInputCopy) {
  const std::string base =
      "predict --net resnet50 --gpu rtx4090 --batch 256 --precision fp16 --format json";
  const auto copied = json_of(base);
  const auto on_gpu = json_of(base + " --input-on-gpu");
  const double h2d_gbs = copied["eager_overhead"]["h2d_gbs"].get<double>();
  ASSERT_GT(h2d_gbs, 0);
  // 256 x 3 x 224 x 224 fp16 values, at the calibrated copy rate.
  const double copy_ms = 256.0 * 3 * 224 * 224 * 2 / (h2d_gbs * 1e6);
  EXPECT_NEAR(
      copied["total"]["latency_ms"].get<double>() - on_gpu["total"]["latency_ms"].get<double>(),
      copy_ms, 1e-6);
  EXPECT_DOUBLE_EQ(copied["total"]["kernel_ms"].get<double>(),
                   on_gpu["total"]["kernel_ms"].get<double>());
  EXPECT_GE(on_gpu["total"]["overhead_ms"].get<double>(), 0);
  // The other runtimes never copy: the flag changes nothing there.
  const std::string compiled = base + " --runtime pytorch-compile";
  EXPECT_DOUBLE_EQ(json_of(compiled)["total"]["latency_ms"].get<double>(),
                   json_of(compiled + " --input-on-gpu")["total"]["latency_ms"].get<double>());
}

TEST(PredictCli, TableSaysWhenTheHostSetsTheStepTime) {
  const RunResult small = run_cnnperf("predict --net resnet50 --gpu a100 --batch 1");
  ASSERT_EQ(small.exit_code, 0) << small.err;
  EXPECT_NE(small.out.find("host-bound: "), std::string::npos) << small.out;
  const RunResult large = run_cnnperf("predict --net resnet50 --gpu a100 --batch 64");
  ASSERT_EQ(large.exit_code, 0) << large.err;
  EXPECT_EQ(large.out.find("host-bound"), std::string::npos) << large.out;
}

// The RTX 2080 Ti's machines ran steps faster than the kernel sum the analytical model gives
// (kernel-time scale 0.75): the table says why latency_ms is then the smaller, and only then,
// and the total names the scale's share (kernel_scale_ms) apart from the runtime's overhead.
TEST(PredictCli, TableSaysWhyTheStepIsUnderTheKernelSum) {
  const RunResult fast = run_cnnperf(
      "predict --net efficientnet_b7 --gpu rtx-2080-ti --batch 64 "
      "--format json");
  ASSERT_EQ(fast.exit_code, 0) << fast.err;
  const auto total = nlohmann::json::parse(fast.out)["total"];
  ASSERT_LT(total["latency_ms"].get<double>(), total["kernel_ms"].get<double>());
  const RunResult table = run_cnnperf("predict --net efficientnet_b7 --gpu rtx-2080-ti --batch 64");
  EXPECT_LT(total["kernel_scale_ms"].get<double>(), 0);
  EXPECT_GE(total["overhead_ms"].get<double>(), 0);
  EXPECT_NE(table.out.find("below kernel_ms: the end-to-end calibration (kernel-time scale x0.753,"
                           " step x1)"),
            std::string::npos)
      << table.out;
  const RunResult usual = run_cnnperf("predict --net resnet50 --gpu a100 --batch 64");
  EXPECT_EQ(usual.out.find("below kernel_ms"), std::string::npos) << usual.out;
}

TEST(PredictCli, EnergyBudgetIsExitThreeWithOneLine) {
  const RunResult r =
      run_cnnperf("predict --net resnet50 --gpu v100-pcie-16gb --batch 64 --max-energy-j 0.001");
  EXPECT_EQ(r.exit_code, 3);
  EXPECT_NE(r.err.find("energy budget exceeded"), std::string::npos) << r.err;
  EXPECT_EQ(cnnperf::cli_test::count_lines(r.err), 1) << r.err;
}

TEST(TrainPowerCli, WritesAPowerModelThatPredictCanUse) {
  const auto out = temp_dir() / "power_model.json";
  const RunResult r = run_cnnperf("train power --data " + source_file("datasets/power_zeus.csv") +
                                  " --out \"" + out.string() + "\"");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("leave-gpu-out"), std::string::npos);
  EXPECT_NE(r.out.find("slowdown_mape_%"), std::string::npos);
  std::ifstream in(out);
  const auto model = nlohmann::json::parse(in);
  EXPECT_EQ(model["kind"], "power_model");
  EXPECT_EQ(model["schema_version"], 1);
  const RunResult v = run_cnnperf("validate --power " + source_file("datasets/power_zeus.csv") +
                                  " --power-model \"" + out.string() + "\" --format csv");
  ASSERT_EQ(v.exit_code, 0) << v.err;
  EXPECT_NE(v.out.find("given model"), std::string::npos);
}

// The power model is `train power`; --power is no option of (latency) train.
TEST(TrainPowerCli, PowerIsASubcommandNotAnOption) {
  const RunResult r = run_cnnperf("train --power " + source_file("datasets/power_zeus.csv") +
                                  " --data " + source_file("datasets/e2e_torchvision.csv"));
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("--power"), std::string::npos) << r.err;
  EXPECT_EQ(cnnperf::cli_test::count_lines(r.err), 1) << r.err;
}

TEST(ValidatePowerCli, FailsTheGateWhenTheSlowdownErrorIsAboveTheBar) {
  const RunResult r = run_cnnperf("validate --power " + source_file("datasets/power_zeus.csv") +
                                  " --fail-if-mape-above 0.001");
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.err.find("power-cap slowdown MAPE"), std::string::npos) << r.err;
}

// --power-model scores --power rows only; given alone it would be read for nothing.
TEST(ValidatePowerCli, APowerModelWithoutPowerRowsIsExitTwo) {
  const RunResult r = run_cnnperf("validate --e2e " + source_file("datasets/e2e_torchvision.csv") +
                                  " --power-model " + source_file("models/power_model.json"));
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("--power-model: applies to --power rows"), std::string::npos) << r.err;
}

// Adjusted R^2 is undefined with no more rows than features: JSON null, an empty cell in the
// table and the CSV, never "nan" (a CSV reader would take it for a number).
TEST(ValidateLayersCli, AnUndefinedMetricIsAnEmptyCell) {
  const std::string all = read_text_file(std::string(CNNPERF_SOURCE_DIR_FOR_TESTS) +
                                         "/datasets/layers_neusight.csv.gz");
  std::istringstream lines(all);
  std::string few;
  std::string line;
  for (int i = 0; i < 6 && std::getline(lines, line); ++i) few += line + "\n";
  const auto csv = temp_dir() / "validate_few_rows.csv";
  std::ofstream(csv) << few;
  const RunResult json = run_cnnperf("validate --data \"" + csv.string() + "\" --format json");
  ASSERT_EQ(json.exit_code, 0) << json.err;
  EXPECT_TRUE(nlohmann::json::parse(json.out)["layers"]["overall"]["adjusted_r2"].is_null());
  for (const std::string format : {"csv", "table"}) {
    const RunResult r = run_cnnperf("validate --data \"" + csv.string() + "\" --format " + format);
    ASSERT_EQ(r.exit_code, 0) << r.err;
    EXPECT_EQ(r.out.find("nan"), std::string::npos) << r.out;
  }
}

// --e2e takes several files, like --data: the same rows named twice are read once, and the
// report names the files it read.
TEST(ValidateE2eCli, SeveralFilesAreReadAsOne) {
  const std::string e2e = source_file("datasets/e2e_torchvision.csv");
  const RunResult once = run_cnnperf("validate --e2e " + e2e + " --format json");
  const RunResult twice = run_cnnperf("validate --e2e " + e2e + " " + e2e + " --format json");
  ASSERT_EQ(once.exit_code, 0) << once.err;
  ASSERT_EQ(twice.exit_code, 0) << twice.err;
  EXPECT_NE(twice.err.find("named more than once in --e2e; read once"), std::string::npos)
      << twice.err;
  const auto a = nlohmann::json::parse(once.out)["e2e"];
  const auto b = nlohmann::json::parse(twice.out)["e2e"];
  EXPECT_EQ(a["rows"], b["rows"]);
  EXPECT_EQ(a["overall"], b["overall"]);
}

// Only the single-GPU end-to-end MAPE was gated; the 2+ GPU rows' could be anything.
TEST(ValidateE2eCli, TheGateCoversTheDataParallelRowsToo) {
  const std::string e2e = source_file("datasets/e2e_torchvision.csv");
  const RunResult json = run_cnnperf("validate --e2e " + e2e + " --format json");
  ASSERT_EQ(json.exit_code, 0) << json.err;
  const auto doc = nlohmann::json::parse(json.out)["e2e"];
  const double single = doc["overall"]["mape_pct"].get<double>();
  const double multi = doc["data_parallel"]["overall"]["mape_pct"].get<double>();
  ASSERT_NE(single, multi);
  // A bar between the two fails on the higher one, whichever it is.
  const std::string bar = format_number((single + multi) / 2, 6);
  const RunResult gated = run_cnnperf("validate --e2e " + e2e + " --fail-if-mape-above " + bar);
  EXPECT_EQ(gated.exit_code, 1);
  EXPECT_NE(gated.err.find(multi > single ? "validate: end-to-end 2+ GPUs MAPE"
                                          : "validate: end-to-end MAPE"),
            std::string::npos)
      << gated.err;
  const std::string above = format_number(std::max(single, multi) + 1, 6);
  EXPECT_EQ(run_cnnperf("validate --e2e " + e2e + " --fail-if-mape-above " + above).exit_code, 0);
}

TEST(TrainE2eCli, CalibratesTheAnalyticalOverhead) {
  const auto out = temp_dir() / "eager_overhead.json";
  const RunResult r =
      run_cnnperf("train e2e --data " + source_file("datasets/e2e_torchvision.csv") + " --out \"" +
                  out.string() + "\"");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("leave-gpu-out"), std::string::npos);
  EXPECT_NE(r.out.find("analytical eager overhead fitted on all rows"), std::string::npos);
  std::ifstream in(out);
  const auto doc = nlohmann::json::parse(in);
  EXPECT_EQ(doc["kind"], "eager_overhead");
  EXPECT_EQ(doc["latency_model"], "analytical");
  EXPECT_GT(doc["eager_overhead"]["host_ms_per_op"].get<double>(), 0);
  // The 2-4 GPU rows calibrate the data-parallel terms and are scored apart.
  EXPECT_NE(r.out.find("e2e 2+ GPUs"), std::string::npos);
  EXPECT_EQ(doc["eager_overhead"]["data_parallel"]["rows"].get<int>(), 1296);
  EXPECT_EQ(doc["eager_overhead"]["data_parallel_per_gpu"].size(), 4U);
  // Its kernel model: fp16 tensor-core efficiencies of the architectures with fp16 rows on
  // tensor cores (the RTX 2080 Ti and TITAN RTX, the A100), and "*" for the others.
  const auto& tc = doc["kernel_model"]["tensor_core_fp16_efficiency"];
  for (const char* arch : {"turing", "ampere", "*"}) EXPECT_TRUE(tc.contains(arch)) << arch;
  // predict --eager-overhead uses the file: its overhead and its kernel model. On the A100 the
  // two files' kernel models differ: the bundled one's Ampere fp16 efficiency is also fitted on
  // timm's RTX 3090 rows, which this file was not given.
  const RunResult p = run_cnnperf(
      "predict --net resnet50 --gpu a100 --batch 64 --precision "
      "fp16 --format json --eager-overhead \"" +
      out.string() + "\"");
  ASSERT_EQ(p.exit_code, 0) << p.err;
  const auto own = nlohmann::json::parse(p.out);
  // The prediction's source is the file's, then what of it applied to this GPU and network.
  const std::string own_source = own["eager_overhead"]["source"].get<std::string>();
  EXPECT_EQ(own_source.rfind(doc["eager_overhead"]["source"].get<std::string>(), 0), 0U)
      << own_source;
  const RunResult bundled =
      run_cnnperf("predict --net resnet50 --gpu a100 --batch 64 --precision fp16 --format json");
  ASSERT_EQ(bundled.exit_code, 0) << bundled.err;
  EXPECT_NE(nlohmann::json::parse(bundled.out)["total"]["kernel_ms"].get<double>(),
            own["total"]["kernel_ms"].get<double>());
  const RunResult both = run_cnnperf("predict --net resnet50 --gpu titan-rtx --eager-overhead \"" +
                                     out.string() + "\" --model models/cnnperf_default.json");
  EXPECT_EQ(both.exit_code, 2);
  EXPECT_NE(both.err.find("--eager-overhead and --model"), std::string::npos) << both.err;
}

// Bad usage, whether CLI11 or the library finds it, is exit 2 with one line naming the flag.
TEST(PredictCli, BadNumbersAndUsageAreOneLineNamingTheFlag) {
  for (const char* args : {"--batch -4", "--batch 0", "--batch 2x"}) {
    const RunResult r = run_cnnperf(std::string("predict --net resnet18 --gpu a100 ") + args);
    EXPECT_EQ(r.exit_code, 2) << args;
    EXPECT_EQ(r.err.rfind("cnnperf: error: --batch: expected a positive integer", 0), 0U) << r.err;
    EXPECT_EQ(cli_test::count_lines(r.err), 1) << r.err;
    EXPECT_TRUE(r.out.empty()) << args;
  }
  for (const char* flag :
       {"--max-latency-ms", "--max-energy-j", "--power-limit", "--host-ms-per-op"}) {
    const RunResult r =
        run_cnnperf(std::string("predict --net resnet18 --gpu a100 ") + flag + " -1");
    EXPECT_EQ(r.exit_code, 2) << flag;
    EXPECT_EQ(r.err, std::string("cnnperf: error: ") + flag +
                         ": expected a positive number, got -1 (see --help)\n");
  }
  RunResult r = run_cnnperf("predict --net resnet18 --gpu a100 --bogus");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(r.err.rfind("cnnperf: error: ", 0), 0U) << r.err;
  EXPECT_NE(r.err.find("--bogus"), std::string::npos) << r.err;
  EXPECT_EQ(cli_test::count_lines(r.err), 1) << r.err;
  r = run_cnnperf("train --data " + source_file("datasets/layers_neusight.csv.gz") +
                  " --max-rows 0");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(r.err.rfind("cnnperf: error: --max-rows: expected a positive integer, got 0", 0), 0U)
      << r.err;
  r = run_cnnperf("train --e2e " + source_file("datasets/e2e_torchvision.csv") + " --max-rows 100");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(r.err.rfind("cnnperf: error: --max-rows: samples --data rows", 0), 0U) << r.err;
  r = run_cnnperf("frobnicate");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(r.err.rfind("cnnperf: error: unknown subcommand 'frobnicate'", 0), 0U) << r.err;
  EXPECT_EQ(cli_test::count_lines(r.err), 1) << r.err;
}

TEST(PredictCli, VerboseWorksAfterTheSubcommandToo) {
  const RunResult r = run_cnnperf("predict --net resnet18 --gpu a100 --format csv -v");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.err.find("cnnperf: info: "), std::string::npos) << r.err;
  EXPECT_EQ(r.out.rfind("name,", 0), 0U) << r.out.substr(0, 200);  // stdout stays pure CSV
}

// These CSVs end each row with the schema version of what they hold (the layer CSV
// `predict --layers` extends keeps DESIGN's columns first, then these).
TEST(PredictCli, CsvOutputsCarryTheirSchemaVersion) {
  const std::string layers = source_file("datasets/layers_neusight.csv.gz");
  const auto layer_csv = temp_dir() / "layers_versioned.csv";
  std::ofstream(layer_csv) << "op,batch,c_in,h_in,w_in,c_out,kernel_h,kernel_w,model\n"
                              "conv2d,1,64,56,56,64,3,3,mine\n";
  const std::vector<std::string> commands{
      "predict --net resnet18 --gpu a100",
      "gpus",
      "gpus show t4",
      "predict --gpu t4 --layers \"" + layer_csv.string() + "\"",
      "validate --e2e " + source_file("datasets/e2e_torchvision.csv"),
      "train --data " + layers + " --max-rows 400 --regressor linear --folds 2"};
  for (const std::string& args : commands) {
    const RunResult r = run_cnnperf(args + " --format csv");
    ASSERT_EQ(r.exit_code, 0) << args << "\n" << r.err;
    std::istringstream lines(r.out);
    std::string header;
    std::string first;
    std::getline(lines, header);
    std::getline(lines, first);
    EXPECT_TRUE(header.ends_with(",schema_version")) << args << ": " << header;
    // Predictions are at version 2 (their latency intervals); the others at 1.
    EXPECT_TRUE(first.ends_with(args.starts_with("predict") ? ",2" : ",1"))
        << args << ": " << first;
  }
  // And what the numbers came from: the GPU and the model of a network, the model of layer
  // rows (an input column of that name is kept, the added one prefixed).
  const RunResult net = run_cnnperf("predict --net resnet18 --gpu a100 --format csv");
  EXPECT_NE(net.out.find(",kernel_ms,kernel_scale_ms,overhead_ms,runtime,gpu,model,skipped_nodes,"
                         "schema_version\n"),
            std::string::npos)
      << net.out;
  EXPECT_NE(net.out.find(",pytorch,a100-sxm4-40gb,analytical,,2\n"), std::string::npos) << net.out;
  EXPECT_NE(net.out.find(",pytorch,a100-sxm4-40gb,analytical,0,2\n"), std::string::npos) << net.out;
  const RunResult rows =
      run_cnnperf("predict --gpu t4 --layers \"" + layer_csv.string() + "\" --format csv");
  EXPECT_NE(rows.out.find(",model,kernel_ms,overhead_ms,latency_ms,"), std::string::npos)
      << rows.out;
  EXPECT_NE(rows.out.find(",in_distribution,predicted_model,runtime,schema_version\n"),
            std::string::npos)
      << rows.out;
  EXPECT_NE(rows.out.find(",mine,"), std::string::npos) << rows.out;
  EXPECT_NE(rows.out.find(",analytical,pytorch,2\n"), std::string::npos) << rows.out;
}

// A CSV reader must get the network's end-to-end step, not only its layers: the file ends with
// a `total` row holding the JSON's totals.
TEST(PredictCli, NetworkCsvEndsWithTheTotalsOfTheJson) {
  const std::string args = "predict --net resnet18 --gpu t4 --batch 8 --mode training";
  const RunResult csv = run_cnnperf(args + " --format csv");
  const RunResult json = run_cnnperf(args + " --format json");
  ASSERT_EQ(csv.exit_code, 0) << csv.err;
  ASSERT_EQ(json.exit_code, 0) << json.err;
  const auto doc = nlohmann::json::parse(json.out);
  const auto& total = doc.at("total");
  const CsvTable table = parse_csv(csv.out, "predict --net csv");
  ASSERT_EQ(table.rows.size(), doc.at("layers").size() + 1);  // layers, then the total
  const std::size_t last = table.rows.size() - 1;
  auto number = [&](std::size_t row, std::string_view column) {
    const auto v = table.get_number(row, column);
    EXPECT_TRUE(v.has_value()) << column << " of row " << row;
    return v.value_or(0);
  };
  EXPECT_EQ(table.get(last, "name"), "total");
  EXPECT_EQ(table.get(last, "op"), "total");
  for (const auto& [column, expected] :
       {std::pair{"latency_ms", total.at("latency_ms").get<double>()},
        std::pair{"kernel_ms", total.at("kernel_ms").get<double>()},
        std::pair{"energy_mj", 1e3 * total.at("energy_j").get<double>()},
        std::pair{"flops", total.at("flops").get<double>()}}) {
    EXPECT_NEAR(number(last, column), expected, 1e-5 * expected) << column;
  }
  // The eager step holds more than its kernels; each layer's latency_ms is its kernel_ms and
  // the runtime's overhead_ms, the step's also the calibration's kernel_scale_ms.
  EXPECT_GT(number(last, "latency_ms"), number(last, "kernel_ms"));
  EXPECT_NEAR(
      number(last, "overhead_ms"),
      number(last, "latency_ms") - number(last, "kernel_ms") - number(last, "kernel_scale_ms"),
      1e-5 * number(last, "latency_ms"));
  EXPECT_NEAR(number(last, "kernel_scale_ms"), total.at("kernel_scale_ms").get<double>(),
              1e-5 * number(last, "latency_ms"));
  double layer_kernel_ms = 0;
  for (std::size_t i = 0; i < last; ++i) {
    EXPECT_NEAR(number(i, "kernel_ms") + number(i, "overhead_ms"), number(i, "latency_ms"),
                1e-5 * number(i, "latency_ms"))
        << i;
    layer_kernel_ms += number(i, "kernel_ms");
  }
  EXPECT_NEAR(layer_kernel_ms, total.at("kernel_ms").get<double>(),
              1e-4 * total.at("kernel_ms").get<double>());
}

// The network CSV is itself a layer list: `predict --layers` on it (its `total` row left out)
// predicts each layer as the network did, also in fp16 training steps, channels-last and
// with a learned model, where the CSV must carry the dtype, pass, layout and bias it ran.
TEST(PredictCli, NetworkCsvIsALayersInputThatKeepsEachLayersKernelTime) {
  for (const std::string& args :
       {std::string("--net resnet18 --batch 8"),
        std::string("--net mobilenet_v2 --batch 4 --precision fp16 --mode training"),
        std::string("--net resnet50 --batch 2 --precision fp16 --layout nhwc"),
        std::string("--net inception_v3 --batch 1 --model models/cnnperf_default.json")}) {
    const auto csv = temp_dir() / "network_rows.csv";
    RunResult r =
        run_cnnperf("predict " + args + " --gpu a100 --format csv -o \"" + csv.string() + "\"");
    ASSERT_EQ(r.exit_code, 0) << args << ": " << r.err;
    const CsvTable net = read_csv(csv);
    const std::string model =
        args.find("--model") == std::string::npos ? "" : " --model models/cnnperf_default.json";
    r = run_cnnperf("predict --layers \"" + csv.string() + "\" --gpu a100 --format csv" + model);
    ASSERT_EQ(r.exit_code, 0) << args << ": " << r.err;
    EXPECT_EQ(r.err.find("error"), std::string::npos) << r.err;
    const CsvTable layers = parse_csv(r.out, "predict --layers csv");
    ASSERT_EQ(layers.rows.size() + 1, net.rows.size()) << args << ": every row but the total";
    for (std::size_t i = 0; i < layers.rows.size(); ++i) {
      EXPECT_EQ(layers.get(i, "dtype"), net.get(i, "dtype")) << args << " row " << i;
      const double want = net.get_number(i, "kernel_ms").value_or(-1);
      // The input's kernel_ms passes through; the new prediction is predicted_kernel_ms.
      EXPECT_NEAR(layers.get_number(i, "predicted_kernel_ms").value_or(-2), want,
                  1e-5 * want + 1e-9)
          << args << " row " << i << " (" << net.get(i, "name").value_or("") << ")";
    }
  }
}

// `train --export-features` writes what train fits, in one file a user's own learner can read.
TEST(TrainCli, ExportFeaturesWritesTheMatrixInsteadOfTraining) {
  const std::string dir = temp_dir().string();
  const std::string file = dir + "/exported_features.csv";
  const std::string data = source_file("datasets/layers_neusight.csv.gz");
  RunResult r = run_cnnperf("train --data " + data + " --max-rows 600 --cv leave-gpu-out " +
                            "--export-features " + file + " --format json");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto report = nlohmann::json::parse(r.out);
  EXPECT_EQ(report.at("kind"), "feature_export");
  const CsvTable exported = read_csv(file);
  ASSERT_GE(exported.header.size(), 7U);
  EXPECT_EQ(std::vector<std::string>(exported.header.begin(), exported.header.begin() + 4),
            (std::vector<std::string>{"family", "source", "gpu", "fold"}));
  EXPECT_EQ(std::vector<std::string>(exported.header.end() - 3, exported.header.end()),
            (std::vector<std::string>{"baseline_ms", "latency_ms", "log_ratio"}));
  EXPECT_EQ(exported.rows.size(), 600U);
  // Leave-one-GPU-out: one fold per GPU within each family, a different one for each GPU.
  std::map<std::string, std::set<std::string>> folds_of;
  std::map<std::string, std::set<std::string>> gpus_of;
  for (std::size_t i = 0; i < exported.rows.size(); ++i) {
    const std::string family = exported.get(i, "family").value_or("");
    folds_of[family + " " + exported.get(i, "gpu").value_or("")].insert(
        exported.get(i, "fold").value_or(""));
    gpus_of[family + " " + exported.get(i, "fold").value_or("")].insert(
        exported.get(i, "gpu").value_or(""));
  }
  for (const auto& [key, folds] : folds_of) EXPECT_EQ(folds.size(), 1U) << key;
  for (const auto& [key, gpus] : gpus_of) EXPECT_EQ(gpus.size(), 1U) << key;

  r = run_cnnperf("train --data " + data + " --max-rows 600 --export-features " + file + " --out " +
                  dir + "/m.json");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("--export-features"), std::string::npos) << r.err;
  EXPECT_FALSE(std::filesystem::exists(dir + "/m.json"));
}

// The examples name the bundled datasets relatively (`--data datasets/...`): like `--model
// models/...`, they are found from any directory, and a name found nowhere is still an error.
TEST(TrainCli, BundledDatasetsAreFoundFromAnyDirectory) {
  const std::filesystem::path before = std::filesystem::current_path();
  std::filesystem::current_path(temp_dir());
  ASSERT_FALSE(std::filesystem::exists("datasets"));
  const RunResult train = run_cnnperf(
      "train --data datasets/layers_neusight.csv.gz --max-rows 300 --regressor linear --folds 2");
  const RunResult e2e = run_cnnperf("validate --e2e datasets/e2e_torchvision.csv");
  const RunResult power = run_cnnperf("validate --power datasets/power_zeus.csv");
  const RunResult missing = run_cnnperf("train --data datasets/no_such_rows.csv");
  std::filesystem::current_path(before);
  EXPECT_EQ(train.exit_code, 0) << train.err;
  EXPECT_NE(train.out.find("linear"), std::string::npos) << train.out;
  EXPECT_EQ(e2e.exit_code, 0) << e2e.err;
  EXPECT_NE(e2e.out.find("end-to-end"), std::string::npos) << e2e.out;
  EXPECT_EQ(power.exit_code, 0) << power.err;
  EXPECT_EQ(missing.exit_code, 2);
  EXPECT_NE(missing.err.find("datasets/no_such_rows.csv"), std::string::npos) << missing.err;
}

}  // namespace
}  // namespace cnnperf
