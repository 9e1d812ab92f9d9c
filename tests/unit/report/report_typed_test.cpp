// SPDX-License-Identifier: Apache-2.0
// The section writers that parse their input into the result type its command writes: real
// library output reads back into the type unchanged and renders from it; a member an older
// file did not write is not shown with the type's default; a member of the wrong type is an
// input error naming the file.
#include <gtest/gtest.h>

#include <string>
#include <utility>

#include <nlohmann/json.hpp>

#include "../input_error_of.hpp"
#include "cnnperf/common/config.hpp"
#include "cnnperf/common/io.hpp"
#include "cnnperf/model/gpu_spec.hpp"
#include "cnnperf/model/layer.hpp"
#include "cnnperf/model/network.hpp"
#include "cnnperf/model/network_layers.hpp"
#include "cnnperf/model/zoo.hpp"
#include "cnnperf/ptx/ptx.hpp"
#include "cnnperf/report/report.hpp"

namespace cnnperf {
namespace {

std::string error_of(const std::string& json) {
  return test::input_error_of([&] { (void)render_report({{"r.json", json}}); });
}

// `cnnperf ptx layer`'s JSON of a small convolution, through the library.
std::string small_conv_ptx_json() {
  Layer conv;
  conv.op = Op::kConv2d;
  conv.c_in = 8;
  conv.h_in = 8;
  conv.w_in = 8;
  conv.c_out = 8;
  conv.kernel_h = 3;
  conv.kernel_w = 3;
  conv.pad_h = 1;
  conv.pad_w = 1;
  return ptx_results_json(analyze_layer(conv));
}

TEST(ReportTyped, PtxResultReadsBackAndRendersItsLaunch) {
  const std::string text = small_conv_ptx_json();
  const auto j = nlohmann::json::parse(text);
  const auto result = j.get<PtxAnalysisResult>();
  ASSERT_EQ(result.launches.size(), 1U);
  EXPECT_EQ(nlohmann::json(result), j);

  const PtxLaunchResult& launch = result.launches.front();
  const std::string html = render_report({{"ptx.json", text}});
  EXPECT_NE(html.find("Launch 1: " + launch.kernel), std::string::npos);
  EXPECT_NE(html.find("<th>warp_insts</th><td>" + format_number(launch.warp_insts, 6) + "</td>"),
            std::string::npos);
  EXPECT_NE(html.find("<th>grid</th><td>" + std::to_string(launch.grid.x) + ", "),
            std::string::npos);
  EXPECT_NE(html.find("Instruction-class mix"), std::string::npos);
  EXPECT_NE(html.find("Bytes moved per memory space"), std::string::npos);
}

TEST(ReportTyped, PtxMembersAnOlderFileLacksAreNotShown) {
  // SYNTHETIC: a launch with a kernel and a grid only.
  const std::string html = render_report(
      {{"old.json", R"({"schema_version":1,"launches":[{"kernel":"k","grid":[4,1,1]}]})"}});
  EXPECT_NE(html.find("<th>grid</th><td>4, 1, 1</td>"), std::string::npos);
  // PtxLaunchResult's defaults (1 launch, branch efficiency 1) were never in the file.
  EXPECT_EQ(html.find("<th>launches</th>"), std::string::npos);
  EXPECT_EQ(html.find("<th>branch_efficiency</th>"), std::string::npos);
  EXPECT_EQ(html.find("Bytes moved"), std::string::npos);
}

TEST(ReportTyped, GpuSpecResultReadsBackAndRendersInFieldOrder) {
  GpuSpecResult result;
  result.tool_version = CNNPERF_VERSION;
  result.database = "gpus.json";
  result.query = "t4";
  result.gpu = GpuDatabase::bundled().resolve("t4");
  const nlohmann::json j = result;
  EXPECT_EQ(j.at("kind"), kGpuSpecKind);
  EXPECT_EQ(nlohmann::json(j.get<GpuSpecResult>()), j);

  const std::string html = render_report({{"gpu.json", j.dump()}});
  EXPECT_NE(html.find("<th>sm_count</th><td>" + std::to_string(result.gpu.sm_count) + "</td>"),
            std::string::npos);
  EXPECT_NE(html.find("<th>query</th><td>t4</td>"), std::string::npos);
  EXPECT_LT(html.find("<th>name</th>"), html.find("<th>sm_count</th>"));
  EXPECT_NE(html.find("Sources per field"), std::string::npos);
}

TEST(ReportTyped, TrainMembersAnOlderFileLacksAreNotShown) {
  // SYNTHETIC: a train result without host_floor, sources or seed.
  const std::string html = render_report(
      {{"t.json", R"({"cv":[{"regressor":"knn","family":"conv","gpu":"all","cv":"kfold",)"
                  R"("n":4,"mape_pct":12.5}],"cv_scheme":"kfold","rows":4})"}});
  EXPECT_NE(html.find("<th>rows</th><td>4</td>"), std::string::npos);
  EXPECT_EQ(html.find("<th>host_floor</th>"), std::string::npos);
  EXPECT_EQ(html.find("<th>seed</th>"), std::string::npos);
  // Metric columns the file has no value in are left out.
  EXPECT_NE(html.find("<th>mape_pct</th>"), std::string::npos);
  EXPECT_EQ(html.find("<th>spearman</th>"), std::string::npos);
}

TEST(ReportTyped, TrainShowsTheUnseenGpuCheckPerHeldOutGpuAndItsIntervals) {
  // SYNTHETIC: a train result with one family's unseen-GPU check and its interval coverage.
  const std::string html = render_report(
      {{"t.json",
        R"({"cv":[{"regressor":"xgboost","family":"gemm","gpu":"all","cv":"kfold","n":4,)"
        R"("mape_pct":12.5}],"cv_scheme":"kfold","rows":4,"unseen_gpu_check":[{"family":"gemm",)"
        R"("regressor":"xgboost","source":"neusight","rows":4,"learned_mape_pct":30,)"
        R"("gpu_blind_mape_pct":20,"analytical_mape_pct":25,"unseen_gpu":"gpu-blind","per_gpu":)"
        R"({"p4":{"rows":3,"learned_mape_pct":35,"gpu_blind_mape_pct":18,)"
        R"("analytical_mape_pct":27},"v100-pcie-32gb":{"rows":1,"learned_mape_pct":15,)"
        R"("gpu_blind_mape_pct":null,"analytical_mape_pct":19}}}],)"
        R"("unseen_gpu_intervals":{"overall":{"rows":4,"inside":3,"no_interval":0,)"
        R"("coverage":0.75}}})"}});
  EXPECT_NE(html.find("Unseen-GPU check per held-out GPU"), std::string::npos);
  EXPECT_NE(html.find("<td>gemm</td><td>p4</td><td class=\"num\">3</td><td class=\"num\">35</td>"
                      "<td class=\"num\">18</td><td class=\"num\">27</td>"),
            std::string::npos)
      << html;
  EXPECT_NE(html.find("<td>v100-pcie-32gb</td><td class=\"num\">1</td><td class=\"num\">15</td>"
                      "<td>null</td><td class=\"num\">19</td>"),
            std::string::npos);
  EXPECT_NE(html.find("<th>unseen_gpu_intervals.overall.coverage</th><td>0.75</td>"),
            std::string::npos);
}

TEST(ReportTyped, NetworkLayersResultReadsBackInOrderAndRendersItsLayers) {
  const Network net = build_zoo_network("resnet18", {});
  const nlohmann::ordered_json j = network_layers_result(net, DType::kFp32, "cnnperf built-in zoo");
  const auto back = nlohmann::ordered_json::parse(j.dump());
  EXPECT_EQ(nlohmann::ordered_json(back.get<NetworkLayersResult>()), back);
  ASSERT_TRUE(back.contains("published"));

  const std::string html = render_report({{"r18.json", j.dump()}});
  EXPECT_NE(html.find("<h2>1. network layers: resnet18</h2>"), std::string::npos);
  EXPECT_NE(html.find("layers (" + std::to_string(net.layers.size()) + " rows)"),
            std::string::npos);
  EXPECT_NE(html.find("<th>total.params</th><td>" + std::to_string(net.params()) + "</td>"),
            std::string::npos);
  EXPECT_NE(html.find("<th>input.h</th><td>224</td>"), std::string::npos);
}

TEST(ReportTyped, NetworkLayersMembersAnOlderFileLacksAreNotShown) {
  // SYNTHETIC: a layer list without dtype, published figures or the input's channels.
  const std::string html = render_report(
      {{"old.json", R"({"network":"n","input":{"h":8,"w":8},"layers":[{"name":"a","op":"relu",)"
                    R"("flops":64}],"total":{"layers":1}})"}});
  EXPECT_NE(html.find("<th>input.h</th><td>8</td>"), std::string::npos);
  EXPECT_EQ(html.find("<th>input.c</th>"), std::string::npos);
  EXPECT_EQ(html.find("<th>dtype</th>"), std::string::npos);
  EXPECT_EQ(html.find("<th>c_in</th>"), std::string::npos);  // the layer table's columns too
  EXPECT_NE(html.find("<th>flops</th>"), std::string::npos);
}

TEST(ReportTyped, MemberOfTheWrongTypeIsAnInputErrorNamingTheFile) {
  for (const char* json :
       {R"({"kind":"ptx_analysis","launches":[{"grid":"x"}]})",
        R"({"kind":"ptx_analysis","launches":[3]})",
        R"({"kind":"gpu_spec","gpu":{"sm_count":"many"}})",
        R"({"kind":"train_metrics","cv":[{"regressor":1}]})",
        R"({"kind":"validation_metrics","layers":{"rows":"x"}})",
        R"({"kind":"network_layers","layers":[{"macs":[1]}]})",
        R"({"kind":"network_layers","input":3})",
        // An integer member given a fraction or a number beyond its type: no cast.
        R"({"kind":"train_metrics","cv":[],"rows":1e300})",
        R"({"kind":"gpu_spec","gpu":{"sm_count":1.5}})",
        R"({"kind":"ptx_analysis","launches":[{"grid":[1e30,1,1]}]})",
        R"({"kind":"network_prediction","batch":1e300,"layers":[]})",
        R"({"kind":"network_prediction","layers":[{"c_in":2.5}]})",
        R"({"kind":"prediction_sweep","rows":[{"batch":1e300}]})",
        R"({"kind":"plan","candidates":[{"batch":0.5}]})"}) {
    EXPECT_EQ(error_of(json).rfind("r.json: ", 0), 0U) << json << ": " << error_of(json);
  }
}

TEST(ReportTyped, HeadingsNameWhatTheResultHolds) {
  GpuSpecResult spec;
  spec.gpu = GpuDatabase::bundled().resolve("t4");
  const std::string spec_html = render_report({{"gpu.json", nlohmann::json(spec).dump()}});
  EXPECT_NE(spec_html.find("<h2>1. GPU specification: " + spec.gpu.name + "</h2>"),
            std::string::npos);
  // SYNTHETIC: predictions naming their GPU by an entry and by a name alone.
  nlohmann::json by_entry =
      nlohmann::json::parse(R"({"kind":"network_prediction","network":"n","layers":[]})");
  by_entry["gpu"] = spec.gpu;
  const std::string html = render_report(
      {{"a.json", by_entry.dump()},
       {"b.json", R"({"kind":"network_prediction","network":"m","gpu":"a100","layers":[]})"}});
  EXPECT_NE(html.find("<li><a href=\"#input-1\">a.json</a>: network prediction, n on " +
                      spec.gpu.name + "</li>"),
            std::string::npos);
  EXPECT_NE(html.find("<h2>1. network prediction: n on " + spec.gpu.name + "</h2>"),
            std::string::npos);
  EXPECT_NE(html.find("<h2>2. network prediction: m on a100</h2>"), std::string::npos);
}

TEST(ReportTyped, MemberOfTheWrongTypeIsNamedInTheError) {
  // SYNTHETIC: damaged results, one member each (the inner member of a nested one too).
  for (const auto& [json, member] :
       {std::pair{R"({"kind":"network_prediction","batch":1.5,"layers":[]})", "batch: "},
        std::pair{R"({"kind":"network_prediction","layers":[{"c_in":2.5}]})", "c_in: "},
        std::pair{R"({"kind":"train_metrics","cv":[{"regressor":1}]})", "cv: regressor: "},
        std::pair{R"({"kind":"gpu_spec","gpu":{"sm_count":1.5}})", "gpu: sm_count: "},
        std::pair{R"({"kind":"network_layers","layers":[{"macs":[1]}]})", "layers: macs: "},
        std::pair{R"({"kind":"ptx_analysis","launches":[{"kernel":3}]})", "launches: kernel: "}}) {
    const std::string error = error_of(json);
    EXPECT_EQ(error.rfind("r.json: ", 0), 0U) << json << ": " << error;
    EXPECT_NE(error.find(member), std::string::npos) << json << ": " << error;
  }
  // A layer that is no object is damaged, not a layer of defaults.
  EXPECT_EQ(error_of(R"({"kind":"network_prediction","layers":[3]})").rfind("r.json: ", 0), 0U);
}

}  // namespace
}  // namespace cnnperf
