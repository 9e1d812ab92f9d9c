// SPDX-License-Identifier: Apache-2.0
// GPU database: contents of models/gpus.json, name matching, spec files, loader errors.
#include <cmath>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include <unistd.h>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "../input_error_of.hpp"
#include "cnnperf/common/error.hpp"
#include "cnnperf/common/io.hpp"
#include "cnnperf/model/gpu_spec.hpp"
#include "cnnperf/predict/predict.hpp"

namespace cnnperf {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

const std::string kDbPath = std::string(CNNPERF_SOURCE_DIR_FOR_TESTS) + "/models/gpus.json";

const GpuDatabase& db() {
  static const GpuDatabase loaded = GpuDatabase::load(kDbPath);
  return loaded;
}

std::string resolved_name(std::string_view query) {
  const auto found = db().find(query);
  return found ? found->name : "<none>";
}

// A scratch directory for the synthetic files some tests write.
class TempDir {
 public:
  TempDir() {
    static int counter = 0;
    path_ = fs::temp_directory_path() /
            ("cnnperf_gpu_db_test_" + std::to_string(::getpid()) + "_" +
             ::testing::UnitTest::GetInstance()->current_test_info()->name() + "_" +
             std::to_string(counter++));
    fs::create_directories(path_);
  }
  ~TempDir() {
    std::error_code ec;
    fs::remove_all(path_, ec);
  }
  std::string write(const std::string& name, const std::string& text) const {
    const fs::path p = path_ / name;
    std::ofstream(p) << text;
    return p.string();
  }

 private:
  fs::path path_;
};

json bundled_json() {
  return json::parse(read_text_file(kDbPath));
}

// Loads a (synthetic, mutated) database and returns the InputError message, or "" if none.
// load_deferred, with every entry and every entry's sources then used, must say the same.
std::string load_error(const json& doc) {
  TempDir dir;
  const std::string path = dir.write("synthetic_gpus.json", doc.dump());
  const auto error_of = [](const auto& load) {
    try {
      load();
    } catch (const InputError& e) {
      return std::string(e.what());
    }
    return std::string();
  };
  const std::string eager = error_of([&] { (void)GpuDatabase::load(path); });
  const std::string deferred = error_of([&] {
    const GpuDatabase lazy = GpuDatabase::load_deferred(path);
    for (const auto& g : lazy.all()) (void)lazy.sources_of(g.name);
  });
  EXPECT_EQ(deferred, eager) << "load_deferred differs from load";
  return eager;
}

// ---------------------------------------------------------------------------------------------
// Contents

TEST(GpuDbContents, HasAtLeastSixtyEntriesAcrossSegmentsAndArchitectures) {
  EXPECT_GE(db().all().size(), 60u);
  std::map<std::string, int> segments;
  std::set<std::string> architectures;
  for (const auto& g : db().all()) {
    ++segments[g.segment];
    architectures.insert(g.architecture);
  }
  EXPECT_GE(segments["datacenter"], 25);
  EXPECT_GE(segments["desktop"], 20);
  EXPECT_GE(segments["workstation"], 5);
  EXPECT_GE(segments["jetson"], 5);
  EXPECT_EQ(architectures, (std::set<std::string>{"kepler", "maxwell", "pascal", "volta", "turing",
                                                  "ampere", "ada", "hopper", "blackwell"}));
}

TEST(GpuDbContents, EveryRequiredGpuIsPresent) {
  // Query as a user would type it -> database entry.
  const std::vector<std::pair<std::string, std::string>> required = {
      {"K40", "k40"},
      {"K80", "k80"},
      {"M40", "m40"},
      {"M60", "m60"},
      {"P4", "p4"},
      {"P40", "p40"},
      {"Tesla P100-PCIE-12GB", "p100-pcie-12gb"},
      {"Tesla P100-PCIE-16GB", "p100-pcie-16gb"},
      {"Tesla P100-SXM2-16GB", "p100-sxm2-16gb"},
      {"V100 PCIe 16GB", "v100-pcie-16gb"},
      {"V100 PCIe 32GB", "v100-pcie-32gb"},
      {"V100 SXM2 16GB", "v100-sxm2-16gb"},
      {"V100 SXM2 32GB", "v100-sxm2-32gb"},
      {"T4", "t4"},
      {"A10", "a10"},
      {"NVIDIA A10G", "a10g"},
      {"A30", "a30"},
      {"A40", "a40"},
      {"A100 PCIe 40GB", "a100-pcie-40gb"},
      {"A100 SXM4 40GB", "a100-sxm4-40gb"},
      {"A100 PCIe 80GB", "a100-pcie-80gb"},
      {"A100 SXM4 80GB", "a100-sxm4-80gb"},
      {"L4", "l4"},
      {"L40", "l40"},
      {"L40S", "l40s"},
      {"NVIDIA L20", "l20"},
      {"H100 PCIe", "h100-pcie-80gb"},
      {"H100 SXM", "h100-sxm5-80gb"},
      {"H200", "h200-sxm-141gb"},
      {"NVIDIA H20", "h20"},
      {"NVIDIA GH200 480GB", "gh200-96gb"},
      {"GH200", "gh200-96gb"},
      {"NVIDIA GH200 144G HBM3e", "gh200-144gb"},
      {"B200", "b200"},
      {"GTX 980 Ti", "gtx-980-ti"},
      {"GTX TITAN X", "gtx-titan-x"},
      {"GTX 1050", "gtx-1050"},
      {"GTX 1060", "gtx-1060-6gb"},
      {"GTX 1070", "gtx-1070"},
      {"GTX 1080", "gtx-1080"},
      {"GTX 1080 Ti", "gtx-1080-ti"},
      {"TITAN X (Pascal)", "titan-x-pascal"},
      {"TITAN Xp", "titan-xp"},
      {"TITAN V", "titan-v"},
      {"RTX 2060", "rtx-2060"},
      {"RTX 2070", "rtx-2070"},
      {"RTX 2080", "rtx-2080"},
      {"RTX 2080 Super", "rtx-2080-super"},
      {"RTX 2080 Ti", "rtx-2080-ti"},
      {"TITAN RTX", "titan-rtx"},
      {"Quadro RTX 6000", "quadro-rtx-6000"},
      {"Quadro RTX 8000", "quadro-rtx-8000"},
      {"RTX 3060", "rtx-3060"},
      {"RTX 3070", "rtx-3070"},
      {"RTX 3080", "rtx-3080"},
      {"RTX 3090", "rtx-3090"},
      {"RTX 3090 Ti", "rtx-3090-ti"},
      {"RTX A4000", "rtx-a4000"},
      {"RTX A5000", "rtx-a5000"},
      {"RTX A6000", "rtx-a6000"},
      {"RTX 4060", "rtx-4060"},
      {"RTX 4070", "rtx-4070"},
      {"RTX 4080", "rtx-4080"},
      {"RTX 4090", "rtx-4090"},
      {"RTX 6000 Ada", "rtx-6000-ada"},
      {"RTX 5080", "rtx-5080"},
      {"RTX 5090", "rtx-5090"},
      {"Jetson TX2", "jetson-tx2"},
      {"Jetson Nano", "jetson-nano"},
      {"Jetson Xavier NX", "jetson-xavier-nx"},
      {"Jetson AGX Xavier", "jetson-agx-xavier"},
      {"Jetson AGX Orin", "jetson-agx-orin-64gb"}};
  for (const auto& [query, expected] : required) {
    EXPECT_EQ(resolved_name(query), expected) << "query: " << query;
  }
}

TEST(GpuDbContents, EveryGpuStringInTheMeasuredDataResolvesToTheChosenVariant) {
  // The strings the public data sets (datasets/, /work/shared/data) name their GPUs by, and
  // the entry each must map to (choices explained in docs/gpus.md).
  const std::vector<std::pair<std::string, std::string>> data_strings = {
      {"NVIDIA A100 80GB PCIe", "a100-pcie-80gb"},  // NeuSight conv2d
      {"NVIDIA A100-PCIE-40GB", "a100-pcie-40gb"},  // NeuSight linear/elementwise
      {"A100-SXM4-40GB", "a100-sxm4-40gb"},         // pytorch-gpu-benchmark (DGX A100)
      {"NVIDIA A100-SXM4-40GB", "a100-sxm4-40gb"},
      {"Tesla P100-PCIE-16GB", "p100-pcie-16gb"},  // NeuSight
      {"Tesla P4", "p4"},
      {"Tesla T4", "t4"},
      {"Tesla V100-PCIE-32GB", "v100-pcie-32gb"},
      {"Tesla K40", "k40"},  // MLPredict
      {"Tesla K40c", "k40"},
      {"Tesla K40m", "k40"},
      {"Tesla K80", "k80"},
      {"Tesla M60", "m60"},
      {"Tesla P100", "p100-pcie-16gb"},  // MLPredict: cloud P100 = PCIe 16 GB
      {"Tesla V100", "v100-sxm2-16gb"},  // MLPredict: AWS p3 = SXM2 16 GB
      {"GeForce GTX 1080 Ti", "gtx-1080-ti"},
      {"GeForce RTX 2080 Ti", "rtx-2080-ti"},  // pytorch-gpu-benchmark
      {"TITAN RTX", "titan-rtx"},
      {"TITAN Xp", "titan-xp"},
      {"TITAN V", "titan-v"},
      {"NVIDIA A40", "a40"},  // Zeus
      {"NVIDIA Quadro RTX 6000", "quadro-rtx-6000"},
      {"NVIDIA Tesla P100", "p100-pcie-16gb"},  // Zeus: caps 125-250 W = PCIe range
      {"NVIDIA Tesla V100", "v100-pcie-16gb"},  // Zeus: caps 100-250 W = PCIe range
      {"1080ti", "gtx-1080-ti"},                // HELP device keys
      {"2080ti", "rtx-2080-ti"},
      {"titan_rtx", "titan-rtx"},
      {"titanx", "titan-x-pascal"},  // HELP: Pascal (see docs/gpus.md)
      {"titanxp", "titan-xp"},
      // nvidia-smi / torch.cuda.get_device_name strings
      {"NVIDIA GeForce RTX 3090", "rtx-3090"},
      {"NVIDIA H100 80GB HBM3", "h100-sxm5-80gb"},
      {"NVIDIA H100 PCIe", "h100-pcie-80gb"},
      {"NVIDIA L4", "l4"},
      {"Tesla V100-SXM2-16GB", "v100-sxm2-16gb"},
      {"Tesla V100-SXM2-32GB", "v100-sxm2-32gb"},
      {"Tesla V100-PCIE-16GB", "v100-pcie-16gb"},
      {"NVIDIA A10", "a10"},
      {"Orin", "jetson-agx-orin-64gb"},
      {"Xavier", "jetson-agx-xavier"},
      {"NVIDIA Tegra X2", "jetson-tx2"},
      {"NVIDIA GeForce RTX 4090", "rtx-4090"},
      {"NVIDIA RTX 6000 Ada Generation", "rtx-6000-ada"},
      {"NVIDIA RTX A6000", "rtx-a6000"},
      {"NVIDIA TITAN X (Pascal)", "titan-x-pascal"},
  };
  for (const auto& [text, expected] : data_strings) {
    EXPECT_EQ(resolved_name(text), expected) << "data string: " << text;
  }
}

TEST(GpuDbContents, Fp32PeakMatchesSmCountCoresAndBoostClock) {
  // Deliberate exceptions (entry -> reason) would be listed here; there are none: every
  // datasheet FP32 figure is within 3% of 2 x SMs x cores/SM x boost clock.
  const std::map<std::string, std::string> exceptions = {};
  for (const auto& g : db().all()) {
    if (exceptions.count(g.name) != 0) continue;
    const double computed = 2.0 * g.sm_count * g.fp32_cores_per_sm * g.boost_clock_mhz / 1e6;
    EXPECT_NEAR(g.fp32_tflops, computed, 0.03 * computed) << g.name;
  }
}

TEST(GpuDbContents, FieldsAreInternallyConsistent) {
  const std::set<std::string> known_cc = {"3.5", "3.7", "5.2", "5.3",  "6.0", "6.1",
                                          "6.2", "7.0", "7.2", "7.5",  "8.0", "8.6",
                                          "8.7", "8.9", "9.0", "10.0", "12.0"};
  for (const auto& g : db().all()) {
    SCOPED_TRACE(g.name);
    EXPECT_EQ(known_cc.count(g.compute_capability), 1u);
    EXPECT_LT(g.idle_power_w, g.tdp_w);
    EXPECT_GT(g.idle_power_w, 0);
    EXPECT_LE(g.base_clock_mhz, g.boost_clock_mhz);
    EXPECT_GE(g.release_year, 2012);
    EXPECT_LE(g.release_year, 2026);
    // Tensor cores exist from Volta on, except on TU116/TU117 (GTX 16xx, T400/T600/T1000);
    // none before.
    const double cc = std::stod(g.compute_capability);
    if (cc < 7.0) {
      EXPECT_EQ(g.tensor_fp16_tflops, 0);
    }
    const bool tu11x = g.name.rfind("gtx-16", 0) == 0 || g.name == "t400-2gb" ||
                       g.name == "t400-4gb" || g.name == "t600" || g.name == "t1000-4gb" ||
                       g.name == "t1000-8gb";
    if (cc >= 7.0 && !tu11x) {
      EXPECT_GT(g.tensor_fp16_tflops, g.fp32_tflops);
    }
    if (tu11x) {
      EXPECT_EQ(g.tensor_fp16_tflops, 0);
    }
    // Ridge point (FLOP per byte) in a physically plausible range.
    const double ridge = g.fp32_tflops * 1e3 / g.memory_bandwidth_gbs;
    EXPECT_GT(ridge, 5);
    EXPECT_LT(ridge, 150);
  }
}

TEST(GpuDbContents, Bf16Tf32Fp8AndInt8RatesFollowTheArchitectures) {
  for (const auto& g : db().all()) {
    SCOPED_TRACE(g.name);
    EXPECT_EQ(g.sources.count("tensor_bf16_tflops"), 1u);
    EXPECT_EQ(g.sources.count("tensor_int8_tops"), 1u);
    const double cc = std::stod(g.compute_capability);
    // BF16 tensor cores from Ampere (8.0) on, at the FP32-accumulate FP16 rate.
    if (cc >= 8.0) {
      EXPECT_DOUBLE_EQ(g.tensor_bf16_tflops, g.tensor_fp16_tflops);
    } else {
      EXPECT_EQ(g.tensor_bf16_tflops, 0);
    }
    // TF32 from Ampere on at half the FP16 rate; FP8 from Ada (8.9) on at twice it, not on
    // Jetson Orin (8.7).
    EXPECT_EQ(g.sources.count("tensor_tf32_tflops"), 1u);
    EXPECT_EQ(g.sources.count("tensor_fp8_tflops"), 1u);
    const bool tensor = g.tensor_fp16_tflops > 0;
    EXPECT_DOUBLE_EQ(g.tensor_tf32_tflops, tensor && cc >= 8.0 ? g.tensor_fp16_tflops / 2 : 0);
    EXPECT_DOUBLE_EQ(g.tensor_fp8_tflops, tensor && cc >= 8.9 ? g.tensor_fp16_tflops * 2 : 0);
    // INT8 tensor cores: Turing and later, and Xavier's Volta (7.2); not V100 or TITAN V (7.0).
    if (g.tensor_fp16_tflops > 0 && g.compute_capability != "7.0") {
      const double ratio = g.tensor_int8_tops / g.tensor_fp16_tflops;
      EXPECT_TRUE(std::abs(ratio - 2) < 1e-9 || std::abs(ratio - 4) < 1e-9) << ratio;
    } else {
      EXPECT_EQ(g.tensor_int8_tops, 0);
    }
  }
  // GeForce boards run INT8 at full rate, FP16 with FP32 accumulate at half (whitepapers).
  EXPECT_DOUBLE_EQ(db().resolve("a100-sxm4-40gb").tensor_tf32_tflops, 156);
  EXPECT_DOUBLE_EQ(db().resolve("h100-sxm5-80gb").tensor_tf32_tflops, 494.7);
  EXPECT_DOUBLE_EQ(db().resolve("rtx-4090").tensor_fp8_tflops, 330.4);
  EXPECT_DOUBLE_EQ(db().resolve("rtx-4090").tensor_int8_tops, 660.8);
  EXPECT_DOUBLE_EQ(db().resolve("a100-sxm4-40gb").tensor_int8_tops, 624);
}

TEST(GpuDbContents, EveryFieldHasASourceAndIdlePowerIsMarkedAsAnEstimate) {
  for (const auto& g : db().all()) {
    SCOPED_TRACE(g.name);
    EXPECT_EQ(g.sources.count("default"), 1u);
    for (const auto& field : gpu_spec_field_names()) {
      if (field == "sources") continue;
      EXPECT_FALSE(g.source_of(field).empty()) << field;
    }
    EXPECT_NE(g.source_of("idle_power_w").find("estimate"), std::string::npos);
    EXPECT_NE(g.source_of("compute_capability").find("CUDA C++ Programming Guide"),
              std::string::npos);
  }
}

TEST(GpuDbContents, NvlinkIsGivenForTheNvlinkBoardsOnlyWithItsDatasheet) {
  // The boards whose datasheets give NVLink between the GPUs of the board: the SXM modules,
  // the bridged NVL PCIe cards (H100 NVL, H200 NVL) and the Blackwell HGX and GB200 GPUs.
  // Every other entry has none (PCIe between GPUs); a new NVLink board is added here.
  const std::set<std::string> nvlink_boards = {"p100-sxm2-16gb", "v100-sxm2-16gb", "v100-sxm2-32gb",
                                               "a100-sxm4-40gb", "a100-sxm4-80gb", "h100-sxm5-80gb",
                                               "h100-nvl-94gb",  "h200-sxm-141gb", "h200-nvl-141gb",
                                               "b200",           "b100",           "gb200"};
  int with_nvlink = 0;
  std::set<std::string> listed_seen;
  for (const auto& g : db().all()) {
    SCOPED_TRACE(g.name);
    if (g.nvlink_gbs > 0) ++with_nvlink;
    if (g.name.find("sxm") != std::string::npos) {
      EXPECT_EQ(nvlink_boards.count(g.name), 1u) << "an SXM module missing from nvlink_boards";
    }
    if (nvlink_boards.count(g.name) == 0) {
      EXPECT_EQ(g.nvlink_gbs, 0);
      EXPECT_NE(g.source_of("nvlink_gbs").find("not given: 0"), std::string::npos);
      continue;
    }
    listed_seen.insert(g.name);
    EXPECT_GE(g.nvlink_gbs, 80);
    EXPECT_LE(g.nvlink_gbs, 900);
    EXPECT_NE(g.source_of("nvlink_gbs").find("datasheet"), std::string::npos);
    EXPECT_LT(weight_broadcast_factor(g), 0.25);
  }
  EXPECT_EQ(listed_seen, nvlink_boards);  // every listed board is in the database
  EXPECT_EQ(with_nvlink, static_cast<int>(nvlink_boards.size()));
  EXPECT_DOUBLE_EQ(weight_broadcast_factor(*db().find("titan-rtx")), 1.0);
  EXPECT_NEAR(weight_broadcast_factor(*db().find("a100-sxm4-40gb")), 15.75 / 300, 1e-12);
}

TEST(GpuDbContents, AliasesAreUniqueAcrossEntries) {
  // Exact keys (vendor words kept) must be unique; loose keys (vendor words dropped) may
  // collide only where documented, and then the exact key decides.
  const std::set<std::string> documented_loose_collisions = {"v100"};
  std::map<std::string, std::set<std::string>> exact;
  std::map<std::string, std::set<std::string>> loose;
  for (const auto& g : db().all()) {
    std::vector<std::string> names = {g.name, g.display_name};
    names.insert(names.end(), g.aliases.begin(), g.aliases.end());
    for (const auto& n : names) {
      exact[exact_gpu_key(n)].insert(g.name);
      loose[normalize_gpu_name(n)].insert(g.name);
      // And each name/alias leads back to its own entry.
      EXPECT_EQ(resolved_name(n), g.name) << "alias '" << n << "'";
    }
  }
  for (const auto& [key, owners] : exact) EXPECT_EQ(owners.size(), 1u) << key;
  for (const auto& [key, owners] : loose) {
    if (documented_loose_collisions.count(key) != 0) continue;
    EXPECT_EQ(owners.size(), 1u) << key;
  }
}

TEST(GpuDbContents, BundledDatabaseIsTheRepositoryFile) {
  const GpuDatabase& bundled = GpuDatabase::bundled();
  ASSERT_EQ(bundled.all().size(), db().all().size());
  for (std::size_t i = 0; i < db().all().size(); ++i) {
    EXPECT_EQ(json(bundled.all()[i]), json(db().all()[i])) << db().all()[i].name;
  }
  EXPECT_EQ(&bundled, &GpuDatabase::bundled());  // loaded once
  EXPECT_EQ(bundled.schema_version(), 1);
  EXPECT_TRUE(bundled.find("Tesla T4").has_value());
}

TEST(GpuDbContents, TheBundledDatabaseReadsAnEntrysSourcesWhenAskedFor) {
  const GpuDatabase& bundled = GpuDatabase::bundled();
  for (std::size_t i = 0; i < db().all().size(); ++i) {
    const GpuSpec& deferred = bundled.all()[i];
    const GpuSpec& eager = db().all()[i];
    SCOPED_TRACE(eager.name);
    EXPECT_TRUE(deferred.sources_deferred);
    EXPECT_FALSE(eager.sources_deferred);
    // Until asked for, only the notes on the fields the entry leaves out.
    EXPECT_LT(deferred.sources.size(), eager.sources.size());
    EXPECT_EQ(bundled.sources_of(eager.name), eager.sources);
    for (const auto& field : gpu_spec_field_names()) {
      EXPECT_EQ(deferred.source_of(field), eager.source_of(field)) << field;
    }
  }
  // A copy keeps reading its entry's sources.
  const GpuSpec a100 = bundled.resolve("a100");
  EXPECT_EQ(a100.source_of("tensor_tf32_tflops"),
            db().resolve("a100").source_of("tensor_tf32_tflops"));
  EXPECT_EQ(test::input_error_of([&] { (void)bundled.sources_of("no-such-gpu"); }),
            bundled.source_path() + ": no entry named 'no-such-gpu'");
}

TEST(GpuDbContents, ADeferredLoadBuildsWhatIsUsedAsTheFullLoadDoes) {
  // A fresh deferred database: each call below is the first use of what it reads.
  const GpuDatabase lazy = GpuDatabase::load_deferred(kDbPath);
  const auto a100 = lazy.find("a100");
  ASSERT_TRUE(a100.has_value());
  EXPECT_EQ(json(*a100), json(*db().find("a100")));
  EXPECT_EQ(lazy.closest("a1000"), db().closest("a1000"));
  // Another board of the chip, read from an entry not used before.
  const auto pcie = lazy.find("a100-pcie-40gb");
  ASSERT_TRUE(pcie.has_value());
  const GpuSpec* board = lazy.board_of_same_chip(*pcie, {"a100-sxm4-80gb", "t4"});
  ASSERT_NE(board, nullptr);
  EXPECT_EQ(json(*board), json(*db().board_of_same_chip(*pcie, {"a100-sxm4-80gb", "t4"})));
  EXPECT_EQ(lazy.sources_of("t4"), db().sources_of("t4"));  // sources before the entry
  EXPECT_EQ(json(*lazy.find("t4")), json(*db().find("t4")));
  ASSERT_EQ(lazy.all().size(), db().all().size());
  for (std::size_t i = 0; i < db().all().size(); ++i) {
    EXPECT_EQ(json(lazy.all()[i]), json(db().all()[i])) << db().all()[i].name;
  }
  EXPECT_EQ(lazy.family_defaults(), db().family_defaults());
}

TEST(GpuDbContents, ADeferredLoadReportsABadEntryWhenItIsUsed) {
  json doc = bundled_json();
  doc["gpus"][3]["sm_count"] = -1;
  TempDir dir;
  const std::string path = dir.write("synthetic_gpus.json", doc.dump());
  const std::string name = doc["gpus"][3]["name"];
  const GpuDatabase lazy = GpuDatabase::load_deferred(path);  // names are fine
  EXPECT_TRUE(lazy.find(doc["gpus"][0]["name"].get<std::string>()).has_value());
  const std::string expected = path + ": gpus[3].sm_count: expected a positive integer";
  EXPECT_EQ(test::input_error_of([&] { (void)lazy.find(name); }).rfind(expected, 0), 0u);
  EXPECT_EQ(test::input_error_of([&] { (void)lazy.all(); }).rfind(expected, 0), 0u);
}

TEST(GpuDbContents, EntriesRoundTripThroughJson) {
  for (const auto& g : db().all()) {
    const json j = g;
    const GpuSpec back = gpu_spec_from_json(j, g.name, true);
    EXPECT_EQ(json(back), j) << g.name;
  }
}

// ---------------------------------------------------------------------------------------------
// Matching

TEST(GpuDbMatching, IgnoresCasePunctuationAndVendorWords) {
  for (const char* q : {"Tesla T4", "tesla t4", "TESLA-T4", "nvidia t4", "t4", "  T4 "}) {
    EXPECT_EQ(resolved_name(q), "t4") << q;
  }
  for (const char* q : {"NVIDIA GeForce RTX 3090", "geforce rtx 3090", "RTX3090", "rtx_3090",
                        "GeForceRTX3090", "rtx-3090", "3090"}) {
    EXPECT_EQ(resolved_name(q), "rtx-3090") << q;
  }
  EXPECT_EQ(resolved_name("NVIDIA_A100-PCIE-40GB"), "a100-pcie-40gb");  // NeuSight file names
  EXPECT_EQ(resolved_name("Tesla_V100-PCIE-32GB"), "v100-pcie-32gb");
  EXPECT_EQ(resolved_name("a100-sxm4-80gb"), "a100-sxm4-80gb");
}

TEST(GpuDbMatching, NormalizeDropsVendorWordsAsTokensOnly) {
  EXPECT_EQ(normalize_gpu_name("NVIDIA GeForce RTX 3090"), "rtx3090");
  EXPECT_EQ(normalize_gpu_name("NVIDIA Quadro RTX 6000"), "rtx6000");
  EXPECT_EQ(normalize_gpu_name("NVIDIA RTX 6000 Ada Generation"), "rtx6000adageneration");
  EXPECT_EQ(normalize_gpu_name("Tesla V100-SXM2-16GB"), "v100sxm216gb");
  EXPECT_EQ(normalize_gpu_name("GeForceGTX1080Ti"), "gtx1080ti");
  EXPECT_EQ(exact_gpu_key("NVIDIA Tesla V100"), "nvidiateslav100");
}

TEST(GpuDbMatching, SimilarNamesStayDistinct) {
  EXPECT_EQ(resolved_name("Quadro RTX 6000"), "quadro-rtx-6000");
  EXPECT_EQ(resolved_name("RTX 6000"), "quadro-rtx-6000");  // the Turing card's own name
  EXPECT_EQ(resolved_name("RTX 6000 Ada Generation"), "rtx-6000-ada");
  EXPECT_EQ(resolved_name("RTX A6000"), "rtx-a6000");
  // NVIDIA's name for the 2016 card (and HELP's `titanx`, the same string once spaces are
  // ignored); the Maxwell card calls itself GeForce GTX TITAN X.
  EXPECT_EQ(resolved_name("TITAN X"), "titan-x-pascal");
  EXPECT_EQ(resolved_name("GeForce GTX TITAN X"), "gtx-titan-x");
  EXPECT_EQ(resolved_name("TITAN Xp"), "titan-xp");
  EXPECT_EQ(resolved_name("TITAN X (Pascal)"), "titan-x-pascal");
  EXPECT_EQ(resolved_name("A10"), "a10");
  EXPECT_EQ(resolved_name("A10G"), "a10g");
  EXPECT_EQ(resolved_name("A100"), "a100-sxm4-40gb");
  EXPECT_EQ(resolved_name("H20"), "h20");
  EXPECT_EQ(resolved_name("H200"), "h200-sxm-141gb");
  EXPECT_EQ(resolved_name("L20"), "l20");
  EXPECT_EQ(resolved_name("L40"), "l40");
  EXPECT_EQ(resolved_name("L40S"), "l40s");
  EXPECT_EQ(resolved_name("RTX 3080"), "rtx-3080");
  EXPECT_EQ(resolved_name("RTX 3080 Ti"), "rtx-3080-ti");
}

TEST(GpuDbMatching, FamilyNamesResolveToTheDocumentedDefault) {
  EXPECT_EQ(resolved_name("a100"), "a100-sxm4-40gb");
  EXPECT_EQ(resolved_name("v100"), "v100-sxm2-16gb");
  EXPECT_EQ(resolved_name("NVIDIA V100"), "v100-sxm2-16gb");
  EXPECT_EQ(resolved_name("tesla v100"), "v100-sxm2-16gb");
  EXPECT_EQ(resolved_name("p100"), "p100-pcie-16gb");
  EXPECT_EQ(resolved_name("h100"), "h100-sxm5-80gb");
  EXPECT_EQ(resolved_name("jetson-agx-orin"), "jetson-agx-orin-64gb");
  for (const auto& [family, target] : db().family_defaults()) {
    const auto found = db().find(target);
    ASSERT_TRUE(found.has_value()) << target;
    EXPECT_EQ(found->family, family);
    EXPECT_EQ(resolved_name(family), target);
  }
}

TEST(GpuDbMatching, UnknownNameGivesTheClosestNames) {
  EXPECT_FALSE(db().find("xyz").has_value());
  EXPECT_FALSE(db().find("").has_value());
  EXPECT_EQ(db().closest("rtx 4095", 3).front(), "rtx-4090");
  EXPECT_EQ(db().closest("A100-PCIE-41GB", 3).front(), "a100-pcie-40gb");
  EXPECT_EQ(db().closest("xyz", 5).size(), 5u);
  // A family with a typo, and the start of a full name, find their GPUs.
  for (const auto& name : db().closest("a1000", 3)) EXPECT_EQ(name.rfind("a100-", 0), 0u) << name;
  const auto pcie = db().closest("A100 PCIe", 2);
  for (const auto& name : pcie) EXPECT_EQ(name.rfind("a100-pcie-", 0), 0u) << name;
  try {
    (void)db().resolve("RTX 4095");
    FAIL() << "expected InputError";
  } catch (const InputError& e) {
    const std::string message = e.what();
    EXPECT_EQ(message.rfind("unknown GPU 'RTX 4095'; closest: rtx-4090, ", 0), 0u) << message;
  }
  EXPECT_THROW((void)db().resolve(""), InputError);
}

// ---------------------------------------------------------------------------------------------
// Custom spec files

TEST(GpuSpecFile, ResolvesAJsonSpecFileAndFillsDefaults) {
  TempDir dir;
  // Synthetic GPU (not a real product): only the required fields plus a compute capability.
  const std::string path = dir.write("synthetic_gpu.json", R"({
    "name": "synthetic-gpu", "architecture": "Ampere", "compute_capability": "8.6",
    "sm_count": 10, "fp32_cores_per_sm": 128, "boost_clock_mhz": 1500,
    "memory_bandwidth_gbs": 400, "tdp_w": 100, "tensor_fp16_tflops": 20
  })");
  const GpuSpec g = db().resolve(path);
  EXPECT_EQ(g.name, "synthetic-gpu");
  EXPECT_EQ(g.architecture, "ampere");
  EXPECT_EQ(g.segment, "custom");
  EXPECT_DOUBLE_EQ(g.fp32_tflops, 2.0 * 10 * 128 * 1500 / 1e6);
  EXPECT_DOUBLE_EQ(g.tensor_fp16_tflops, 20);
  EXPECT_DOUBLE_EQ(g.idle_power_w, 10);           // 10% of TDP, documented default
  EXPECT_DOUBLE_EQ(g.shared_mem_per_sm_kb, 100);  // CC 8.6 limits
  EXPECT_EQ(g.max_threads_per_sm, 1536);
  EXPECT_EQ(g.max_blocks_per_sm, 16);
  EXPECT_NE(g.source_of("idle_power_w").find("10% of tdp_w"), std::string::npos);
  EXPECT_NE(g.source_of("name").find(path), std::string::npos);
}

TEST(GpuSpecFile, MissingRequiredFieldNamesTheField) {
  TempDir dir;
  const std::string path = dir.write("synthetic_missing.json", R"({
    "name": "synthetic-gpu", "architecture": "ampere", "fp32_cores_per_sm": 128,
    "boost_clock_mhz": 1500, "memory_bandwidth_gbs": 400, "tdp_w": 100
  })");
  try {
    (void)db().resolve(path);
    FAIL() << "expected InputError";
  } catch (const InputError& e) {
    EXPECT_EQ(std::string(e.what()), path + ".sm_count: expected a value (field is missing)");
  }
}

TEST(GpuSpecFile, RejectsUnknownFieldsBadValuesAndMissingFiles) {
  TempDir dir;
  const std::string typo = dir.write("synthetic_typo.json", R"({
    "name": "g", "architecture": "ampere", "sm_count": 10, "fp32_cores_per_sm": 128,
    "boost_clock_mhz": 1500, "memory_bandwidth_gbs": 400, "tdp_w": 100, "sm_cuont": 3
  })");
  EXPECT_THROW((void)db().resolve(typo), InputError);
  const std::string bad_arch = dir.write("synthetic_arch.json", R"({
    "name": "g", "architecture": "fermi", "sm_count": 10, "fp32_cores_per_sm": 128,
    "boost_clock_mhz": 1500, "memory_bandwidth_gbs": 400, "tdp_w": 100
  })");
  EXPECT_THROW((void)db().resolve(bad_arch), InputError);
  // Implausible values (a clock in GHz, 1e-300 MHz) are errors, not absurd latencies.
  const std::string ghz = dir.write("synthetic_ghz.json", R"({
    "name": "g", "architecture": "ampere", "sm_count": 10, "fp32_cores_per_sm": 128,
    "boost_clock_mhz": 1.5, "memory_bandwidth_gbs": 400, "tdp_w": 100
  })");
  try {
    (void)db().resolve(ghz);
    FAIL();
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("boost_clock_mhz: expected a value in 100..5000"),
              std::string::npos)
        << e.what();
  }
  const std::string cc = dir.write("synthetic_cc.json", R"({
    "name": "g", "architecture": "ampere", "sm_count": 10, "fp32_cores_per_sm": 128,
    "boost_clock_mhz": 1500, "memory_bandwidth_gbs": 400, "tdp_w": 100, "compute_capability": "99.9"
  })");
  EXPECT_THROW((void)db().resolve(cc), InputError);
  EXPECT_THROW((void)db().resolve("/nonexistent/dir/gpu.json"), InputError);
  EXPECT_THROW((void)db().resolve(kDbPath), InputError);  // a whole database is not one spec
}

// ---------------------------------------------------------------------------------------------
// Malformed database files (synthetic mutations of the bundled file)

TEST(GpuDbLoad, BadFieldValueNamesFileEntryAndField) {
  json doc = bundled_json();
  doc["gpus"][12]["sm_count"] = -3;
  const std::string message = load_error(doc);
  EXPECT_NE(message.find("synthetic_gpus.json: gpus[12].sm_count: expected a positive integer"),
            std::string::npos)
      << message;

  doc = bundled_json();
  doc["gpus"][0]["fp32_tflops"] = "fast";
  EXPECT_NE(load_error(doc).find("gpus[0].fp32_tflops: expected a positive number"),
            std::string::npos);

  doc = bundled_json();
  doc["gpus"][3].erase("l2_cache_mb");
  EXPECT_NE(load_error(doc).find("gpus[3].l2_cache_mb: expected a value (field is missing)"),
            std::string::npos);

  doc = bundled_json();
  doc["gpus"][1]["segment"] = "mainframe";
  EXPECT_NE(load_error(doc).find("gpus[1].segment: expected one of"), std::string::npos);
}

TEST(GpuDbLoad, StructuralErrors) {
  json doc = bundled_json();
  doc["schema_version"] = 2;
  EXPECT_NE(load_error(doc).find("schema_version: expected 1, got 2"), std::string::npos);

  doc = bundled_json();
  doc["gpus"].back()["aliases"].push_back("Tesla T4");  // already t4's alias
  EXPECT_NE(load_error(doc).find("'Tesla T4' is already used by 't4'"), std::string::npos);

  doc = bundled_json();
  doc["gpus"][2]["name"] = doc["gpus"][1]["name"];
  EXPECT_NE(load_error(doc).find("gpus[2].name: expected a unique name"), std::string::npos);

  doc = bundled_json();
  doc["family_defaults"]["a100"] = "a100-pcie-99gb";
  EXPECT_NE(load_error(doc).find("family_defaults.a100: expected the name of a gpus entry"),
            std::string::npos);

  doc = bundled_json();
  doc["family_defaults"].erase("v100");
  EXPECT_NE(load_error(doc).find("family 'v100' has 4 entries but no default variant"),
            std::string::npos);

  TempDir dir;
  const std::string broken = dir.write("synthetic_broken.json", "{\"schema_version\": 1,");
  try {
    (void)GpuDatabase::load(broken);
    FAIL() << "expected InputError";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find(broken + ": invalid JSON"), std::string::npos);
  }
  EXPECT_THROW((void)GpuDatabase::load(dir.write("synthetic_empty.json", "")), InputError);
  EXPECT_THROW((void)GpuDatabase::load("/nonexistent/gpus.json"), InputError);
}

// SYNTHETIC: the fields a spec file must give, of a made-up Ampere GPU.
json minimal_spec_file() {
  return {{"name", "my-gpu"},
          {"architecture", "ampere"},
          {"compute_capability", "8.6"},
          {"sm_count", 10},
          {"fp32_cores_per_sm", 128},
          {"boost_clock_mhz", 1500},
          {"memory_bandwidth_gbs", 400},
          {"tdp_w", 100}};
}

// A user's spec file says where each number came from: a field it leaves out is "not given"
// (with the value filled in), never credited to the file.
TEST(GpuSpecFile, FieldsTheFileLeavesOutAreMarkedNotGiven) {
  const json doc = minimal_spec_file();
  GpuSpec g = gpu_spec_from_json(doc, "my_gpu.json", false);
  g.sources.emplace("default", "user spec file my_gpu.json");
  for (const char* given : {"name", "architecture", "sm_count", "boost_clock_mhz", "tdp_w"}) {
    EXPECT_EQ(g.source_of(given), "user spec file my_gpu.json") << given;
  }
  for (const char* left_out :
       {"display_name", "family", "segment", "release_year", "base_clock_mhz", "clock_assumed",
        "aliases", "memory_gb", "idle_power_w"}) {
    EXPECT_EQ(g.source_of(left_out).rfind("not given", 0), 0U)
        << left_out << ": " << g.source_of(left_out);
  }
  EXPECT_EQ(g.display_name, "my-gpu");
  EXPECT_EQ(g.clock_assumed, "boost");
}

// A spec file with an FP16 tensor rate on compute capability 8.0 or newer has TF32 at half of
// it unless it says otherwise; before 8.0, or without tensor cores, none.
TEST(GpuSpecFile, Tf32IsDerivedFromTheFp16TensorRateWhereTheArchitectureHasIt) {
  json doc = minimal_spec_file();
  doc["tensor_fp16_tflops"] = 40;
  GpuSpec g = gpu_spec_from_json(doc, "my_gpu.json", false);
  EXPECT_DOUBLE_EQ(g.tensor_tf32_tflops, 20);
  EXPECT_EQ(g.source_of("tensor_tf32_tflops").rfind("derived", 0), 0U);
  EXPECT_EQ(g.tensor_fp8_tflops, 0);
  doc["tensor_tf32_tflops"] = 25;
  EXPECT_DOUBLE_EQ(gpu_spec_from_json(doc, "my_gpu.json", false).tensor_tf32_tflops, 25);
  doc.erase("tensor_tf32_tflops");
  doc["compute_capability"] = "7.5";
  doc["architecture"] = "turing";
  EXPECT_EQ(gpu_spec_from_json(doc, "my_gpu.json", false).tensor_tf32_tflops, 0);
}

}  // namespace
}  // namespace cnnperf
