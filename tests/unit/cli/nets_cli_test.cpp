// SPDX-License-Identifier: Apache-2.0
// End-to-end: the built `cnnperf nets` binary (CNNPERF_BINARY) lists the zoo, shows a
// network layer by layer in every format, and exits 2 with a suggestion for unknown names.
#include <gtest/gtest.h>
#include <sys/wait.h>

#include <array>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "cli_runner.hpp"
#include "cnnperf/common/config.hpp"
#include "cnnperf/common/io.hpp"
#include "cnnperf/model/layer_io.hpp"
#include "cnnperf/model/network_io.hpp"
#include "cnnperf/model/network_layers.hpp"
#include "cnnperf/model/zoo.hpp"

namespace cnnperf {
namespace {

namespace fs = std::filesystem;

using cli_test::run_cnnperf;
using cli_test::RunResult;
using cli_test::temp_dir;

TEST(NetsCli, ListsTheZooAsATable) {
  const RunResult r = run_cnnperf("nets");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  for (const auto& entry : zoo_entries()) {
    EXPECT_NE(r.out.find(entry.name + " "), std::string::npos) << entry.name;
  }
  EXPECT_NE(r.out.find("25557032"), std::string::npos);  // resnet50's parameters
}

TEST(NetsCli, ListJsonCarriesSchemaSourceAndFigures) {
  const RunResult r = run_cnnperf("nets --format json");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto json = nlohmann::json::parse(r.out);
  EXPECT_EQ(json.at("schema_version"), 1);
  EXPECT_EQ(json.at("tool_version"), CNNPERF_VERSION);
  EXPECT_FALSE(json.at("source").get<std::string>().empty());
  ASSERT_EQ(json.at("networks").size(), zoo_entries().size());
  bool found = false;
  for (const auto& net : json.at("networks")) {
    if (net.at("name") != "resnet50") continue;
    found = true;
    EXPECT_EQ(net.at("params"), 25557032);
    EXPECT_EQ(net.at("published_params"), 25557032);
    EXPECT_NEAR(net.at("gmacs").get<double>(), 4.089, 0.02 * 4.089);
    EXPECT_NEAR(net.at("top1_accuracy").get<double>(), 76.13, 1e-9);
    EXPECT_EQ(net.at("layers"), 175);
  }
  EXPECT_TRUE(found);
}

TEST(NetsCli, ListCsvToFile) {
  const fs::path file = temp_dir() / "zoo.csv";
  const RunResult r = run_cnnperf("nets --format csv --output \"" + file.string() + "\"");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_TRUE(r.out.empty());  // results go to the file only
  const CsvTable table = read_csv(file);
  EXPECT_EQ(table.rows.size(), zoo_entries().size());
  ASSERT_TRUE(table.column("schema_version").has_value());
  ASSERT_TRUE(table.column("published_source").has_value());
  EXPECT_EQ(table.get(0, "schema_version").value_or(""), "1");
}

TEST(NetsCli, ShowResNet50Json) {
  const RunResult r = run_cnnperf("nets show resnet50 --format json");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto json = nlohmann::json::parse(r.out);
  EXPECT_EQ(json.at("schema_version"), 1);
  EXPECT_EQ(json.at("tool_version"), CNNPERF_VERSION);
  EXPECT_FALSE(json.at("source").get<std::string>().empty());
  EXPECT_EQ(json.at("network"), "resnet50");
  // What report reads: the typed result gives back every member, in the order written.
  const auto ordered = nlohmann::ordered_json::parse(r.out);
  EXPECT_EQ(nlohmann::ordered_json(ordered.get<NetworkLayersResult>()), ordered);
  const auto& layers = json.at("layers");
  ASSERT_EQ(layers.size(), 175U);
  EXPECT_EQ(layers.front().at("name"), "conv1");
  EXPECT_EQ(layers.front().at("h_out"), 112);
  std::int64_t params = 0;
  std::int64_t macs = 0;
  for (const auto& layer : layers) {
    params += layer.at("params").get<std::int64_t>();
    macs += layer.at("macs").get<std::int64_t>();
  }
  EXPECT_EQ(json.at("total").at("params"), 25557032);
  EXPECT_EQ(json.at("total").at("params").get<std::int64_t>(), params);
  EXPECT_EQ(json.at("total").at("macs").get<std::int64_t>(), macs);
  EXPECT_DOUBLE_EQ(
      json.at("total").at("flops").get<double>(), 2.0 * static_cast<double>(macs) + [&] {
        double pointwise = 0;
        for (const auto& layer : layers) {
          if (layer.at("macs") == 0) pointwise += layer.at("flops").get<double>();
        }
        return pointwise;
      }());
}

TEST(NetsCli, ShowBatchAndInputSize) {
  const RunResult one = run_cnnperf("nets show resnet18 --format json");
  const RunResult big =
      run_cnnperf("nets show resnet18 --batch 4 --input-size 112x160 --format json");
  ASSERT_EQ(one.exit_code, 0) << one.err;
  ASSERT_EQ(big.exit_code, 0) << big.err;
  const auto a = nlohmann::json::parse(one.out);
  const auto b = nlohmann::json::parse(big.out);
  EXPECT_EQ(b.at("batch"), 4);
  EXPECT_EQ(b.at("input").at("h"), 112);
  EXPECT_EQ(b.at("input").at("w"), 160);
  EXPECT_EQ(b.at("layers").front().at("batch"), 4);
  EXPECT_EQ(b.at("total").at("params"), a.at("total").at("params"));
}

TEST(NetsCli, ShowCsvIsALayerCsv) {
  const RunResult r = run_cnnperf("nets show resnet50 --format csv");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  // The output is a canonical layer CSV: the library's own reader accepts it.
  const LayerTable table = parse_layers_csv(r.out, "nets-show.csv");
  ASSERT_EQ(table.layers.size(), 175U);
  std::int64_t params = 0;
  for (const auto& layer : table.layers) params += layer.params();
  EXPECT_EQ(params, 25557032);
  EXPECT_EQ(table.layers.front().name, "conv1");
}

TEST(NetsCli, ShowTableEndsWithTotals) {
  const RunResult r = run_cnnperf("nets show squeezenet1_1");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("features.3.expand3x3"), std::string::npos);
  // The last two lines: the totals row (parameters first), then the summary.
  std::vector<std::string> lines;
  std::istringstream in(r.out);
  for (std::string line; std::getline(in, line);) {
    if (!line.empty()) lines.push_back(line);
  }
  ASSERT_GE(lines.size(), 2U) << r.out;
  const std::string& totals = lines[lines.size() - 2];
  EXPECT_EQ(totals.rfind("total ", 0), 0U) << totals;
  std::istringstream fields(totals.substr(5));
  std::int64_t params = 0;
  fields >> params;
  EXPECT_EQ(params, 1235496) << totals;
  EXPECT_EQ(lines.back().rfind("params 1235496 ", 0), 0U) << lines.back();
}

TEST(NetsCli, ShowJsonLayerListFile) {
  // A JSON layer list written by the library (network_io) is shown like a zoo network.
  const fs::path file = temp_dir() / "resnet18.json";
  {
    std::ofstream out(file);
    out << network_to_json(build_zoo_network("resnet18", {}));
  }
  const RunResult r = run_cnnperf("nets show \"" + file.string() + "\" --format json");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto json = nlohmann::json::parse(r.out);
  EXPECT_EQ(json.at("total").at("params"), 11689512);
  EXPECT_EQ(json.at("layers").size(), build_zoo_network("resnet18", {}).layers.size());
}

// The layer-list format was readable but no command wrote it.
TEST(NetsCli, LayerListExportReadsBackAsTheSameNetwork) {
  const fs::path file = temp_dir() / "mobilenet_v2_b4.json";
  const RunResult w =
      run_cnnperf("nets show mobilenet_v2 --batch 4 --input-size 160 --layer-list -o \"" +
                  file.string() + "\"");
  ASSERT_EQ(w.exit_code, 0) << w.err;
  NetworkOptions options;
  options.batch = 4;
  options.input_h = options.input_w = 160;
  const Network zoo = build_zoo_network("mobilenet_v2", options);
  EXPECT_EQ(read_text_file(file), network_to_json(zoo));
  const RunResult back = run_cnnperf("nets show \"" + file.string() + "\" --format csv");
  const RunResult direct =
      run_cnnperf("nets show mobilenet_v2 --batch 4 --input-size 160 --format csv");
  ASSERT_EQ(back.exit_code, 0) << back.err;
  // Every column the same but `source` (the file instead of the zoo).
  std::string back_csv = back.out;
  for (std::size_t at; (at = back_csv.find(file.string())) != std::string::npos;) {
    back_csv.replace(at, file.string().size(), "cnnperf zoo");
  }
  EXPECT_EQ(back_csv, direct.out);
  EXPECT_EQ(run_cnnperf("nets --layer-list").exit_code, 2);
  // predict gives the export the zoo network's end-to-end step (its calibrated step scale
  // was lost before: resnet50 on an A100, 7.79 ms read back against 7.60 ms).
  for (const char* gpu : {"a100", "titan-rtx"}) {
    const auto total = [&](const std::string& net) {
      const RunResult p = run_cnnperf("predict --net " + net + " --gpu " + gpu +
                                      " --batch 4 --input-size 160 --format json");
      EXPECT_EQ(p.exit_code, 0) << p.err;
      return nlohmann::json::parse(p.out)["total"];
    };
    const auto from_file = total("\"" + file.string() + "\"");
    const auto from_zoo = total("mobilenet_v2");
    EXPECT_EQ(from_file["latency_ms"], from_zoo["latency_ms"]) << gpu;
    EXPECT_EQ(from_file["kernel_ms"], from_zoo["kernel_ms"]) << gpu;
  }
}

// A file's own element type decides unless --precision is given: an fp16 export was read
// back as fp32 by predict and nets show (the option's fp32 default overrode it).
TEST(NetsCli, AFilesOwnPrecisionAppliesUnlessOneIsGiven) {
  const fs::path file = temp_dir() / "resnet18_fp16.json";
  ASSERT_EQ(
      run_cnnperf("nets show resnet18 --precision fp16 --layer-list -o \"" + file.string() + "\"")
          .exit_code,
      0);
  RunResult r = run_cnnperf("predict --net \"" + file.string() + "\" --gpu a100 --format json");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(nlohmann::json::parse(r.out)["precision"], "fp16");
  r = run_cnnperf("predict --net \"" + file.string() +
                  "\" --gpu a100 --precision fp32 --format json");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(nlohmann::json::parse(r.out)["precision"], "fp32");
  r = run_cnnperf("nets show \"" + file.string() + "\" --format json");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto doc = nlohmann::json::parse(r.out);
  EXPECT_EQ(doc["dtype"], "fp16");
  EXPECT_EQ(doc["layers"][0]["dtype"], "fp16");
  // A zoo network without --precision stays fp32.
  r = run_cnnperf("predict --net resnet18 --gpu a100 --format json");
  EXPECT_EQ(nlohmann::json::parse(r.out)["precision"], "fp32");
}

TEST(NetsCli, UnknownNetworkExits2WithClosestNames) {
  const RunResult r = run_cnnperf("nets show resnet51");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_TRUE(r.out.empty());
  EXPECT_NE(r.err.find("unknown network 'resnet51'"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("resnet50"), std::string::npos) << r.err;
}

TEST(NetsCli, InputTooSmallOrBadFormatExits2) {
  EXPECT_EQ(run_cnnperf("nets show vgg16 --input-size 64").exit_code, 2);
  EXPECT_EQ(run_cnnperf("nets show resnet50 --input-size 0x224").exit_code, 2);
  EXPECT_EQ(run_cnnperf("nets --format xml").exit_code, 2);
}

TEST(NetsCli, HelpHasAnExample) {
  const RunResult r = run_cnnperf("nets show --help");
  EXPECT_EQ(r.exit_code, 0);
  EXPECT_NE(r.out.find("Examples:"), std::string::npos);
  EXPECT_NE(r.out.find("cnnperf nets show resnet50"), std::string::npos);
  EXPECT_NE(r.out.find("cnnperf nets show 'fbnet:"), std::string::npos);
}

}  // namespace
}  // namespace cnnperf
