// SPDX-License-Identifier: Apache-2.0
// `train` / `validate` / model selection on a small subset of REAL measured rows: every 40th
// row of datasets/layers_neusight.csv.gz, copied unchanged into a temporary CSV.
#include <unistd.h>
#include <cmath>
#include <filesystem>
#include <map>
#include <set>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "cnnperf/common/error.hpp"
#include "cnnperf/common/io.hpp"
#include "cnnperf/ml/cross_validation.hpp"
#include "cnnperf/ml/intervals.hpp"
#include "cnnperf/ml/learned_model.hpp"
#include "cnnperf/ml/training_data.hpp"
#include "cnnperf/model/gpu_spec.hpp"
#include "cnnperf/model/layer_io.hpp"
#include "predict/predict_command.hpp"
#include "train/train_command.hpp"
#include "validate/validate_command.hpp"

namespace cnnperf {
namespace {

namespace fs = std::filesystem;

class TrainCommand : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    dir_ = fs::temp_directory_path() / ("cnnperf_train_test_" + std::to_string(::getpid()));
    fs::create_directories(dir_);
    const CsvTable table =
        read_csv(fs::path(CNNPERF_SOURCE_DIR_FOR_TESTS) / "datasets" / "layers_neusight.csv.gz");
    std::string text = csv_line(table.header) + "\n";
    for (std::size_t r = 0; r < table.rows.size(); r += 40) text += csv_line(table.rows[r]) + "\n";
    sample_ = (dir_ / "neusight_every40.csv").string();
    write_output(sample_, text);
    model_ = (dir_ / "model.json").string();
    TrainOptions opts = small_tree_options();
    opts.out = model_;
    opts.output = (dir_ / "train.json").string();
    opts.format = "json";
    ASSERT_EQ(run_train(opts), 0);
  }
  // A depth-8 tree on the sample, 3 folds: quick to train.
  static TrainOptions small_tree_options() {
    TrainOptions opts;
    opts.data = {sample_};
    opts.regressor = "dtree";
    opts.params = R"({"max_depth": 8})";
    opts.folds = 3;
    return opts;
  }
  // A model trained with the unseen-GPU check on the sample without its Tesla P4 rows, so
  // that the P4 (database name "p4") is a GPU it was not fitted on; trained once.
  static const std::string& held_out_p4_model() {
    static const std::string path = [] {
      const CsvTable sample = read_csv(sample_);
      const std::size_t gpu = *sample.column("gpu");
      std::string text = csv_line(sample.header) + "\n";
      for (const auto& row : sample.rows) {
        if (row[gpu] != "Tesla P4") text += csv_line(row) + "\n";
      }
      TrainOptions opts = small_tree_options();
      opts.data = {(dir_ / "without_p4.csv").string()};
      write_output(opts.data[0], text);
      opts.unseen_gpu_check = true;
      opts.out = (dir_ / "without_p4.json").string();
      (void)train_report(opts);
      return opts.out;
    }();
    return path;
  }
  static void TearDownTestSuite() {
    std::error_code ec;
    fs::remove_all(dir_, ec);
  }
  static inline fs::path dir_;
  static inline std::string sample_;
  static inline std::string model_;
};

TEST_F(TrainCommand, WritesReportAndAModelThatPredictsAboveTheRoofline) {
  const auto report = nlohmann::json::parse(read_text_file(dir_ / "train.json"));
  ASSERT_FALSE(report["cv"].empty());
  for (const auto& row : report["cv"]) {
    EXPECT_EQ(row["regressor"], "dtree");
    EXPECT_GT(row["n"].get<std::size_t>(), 10u);
    EXPECT_TRUE(std::isfinite(row["mape_pct"].get<double>()));
    EXPECT_GT(row["spearman"].get<double>(), 0.5) << row.dump();  // CV ranks must mean something
  }
  const auto model = LearnedModel::load(model_);
  EXPECT_EQ(model->metadata()["fingerprint"], report["fingerprint"]);
  EXPECT_EQ(model->metadata()["regressor_per_family"]["conv"], "dtree");
  EXPECT_NE(model->metadata()["command_line"].get<std::string>().find("--regressor dtree"),
            std::string::npos);

  const TrainingData data = load_training_data({sample_});
  ASSERT_GT(data.layers.size(), 100u);
  std::vector<Layer> layers(data.layers.begin(), data.layers.begin() + 50);
  const auto preds = model->predict_layers(layers, data.gpus[0]);
  ASSERT_EQ(preds.size(), layers.size());
  for (const auto& p : preds) {
    EXPECT_TRUE(std::isfinite(p.latency_ms()));
    EXPECT_GE(p.kernel_ms, p.roofline_ms);
    EXPECT_GT(p.roofline_ms, 0);
  }
}

// Issue 3: seeded and deterministic. The model file once held each fit's wall time.
TEST_F(TrainCommand, TheSameCommandTwiceWritesTheSameModelFile) {
  std::string first;
  for (int run = 0; run < 2; ++run) {  // the same command, so the same --out (it is recorded)
    TrainOptions opts = small_tree_options();
    opts.regressor = "rf";
    opts.params = R"({"n_trees": 8})";
    opts.out = (dir_ / "again.json").string();
    opts.output = (dir_ / "again.report.json").string();
    opts.format = "json";
    ASSERT_EQ(run_train(opts), 0);
    const std::string text = read_text_file(opts.out);
    if (first.empty()) {
      first = text;
    } else {
      EXPECT_TRUE(text == first) << "the two model files differ";
    }
    // The printed report still says how long each fit took.
    const auto report = nlohmann::json::parse(read_text_file(opts.output));
    EXPECT_TRUE(report["cv"].at(0).contains("train_s"));
  }
  EXPECT_EQ(first.find("train_s"), std::string::npos);
}

// "the data hold only one GPU" was said of data holding five, when one family held one.
TEST_F(TrainCommand, LeaveGpuOutOnOneGpuNamesTheFamilyAndTheGpu) {
  const CsvTable table = read_csv(sample_);
  const std::size_t op = *table.column("op");
  const std::size_t gpu = *table.column("gpu");
  std::string text = csv_line(table.header) + "\n";
  for (const auto& row : table.rows) {
    if (row[op] == "conv2d" && row[gpu] == "Tesla P4") text += csv_line(row) + "\n";
  }
  const std::string path = (dir_ / "conv_p4.csv").string();
  write_output(path, text);
  TrainOptions opts = small_tree_options();
  opts.data = {path};
  opts.cv = "leave-gpu-out";
  try {
    (void)train_report(opts);
    FAIL();
  } catch (const InputError& e) {
    EXPECT_EQ(std::string(e.what()),
              "conv rows: leave-one-GPU-out: these rows hold only one GPU (p4); expected rows of "
              "two or more");
  }
}

TEST_F(TrainCommand, LeaveGpuOutReportsEveryGpu) {
  TrainOptions opts;
  opts.data = {sample_};
  opts.regressor = "linear";
  opts.cv = "leave-gpu-out";
  const auto report = train_report(opts);
  const TrainingData data = load_training_data({sample_});
  std::set<std::string> gpus;
  for (const auto& g : data.gpus) gpus.insert(g.name);
  ASSERT_GE(gpus.size(), 2u);
  std::set<std::string> reported;
  for (const auto& row : report["cv"]) {
    EXPECT_EQ(row["cv"], "leave-gpu-out");
    if (row["gpu"] != "all") reported.insert(row["gpu"].get<std::string>());
  }
  EXPECT_EQ(reported, gpus);
  EXPECT_FALSE(report.contains("model"));  // no --out: metrics only
}

TEST_F(TrainCommand, ValidateScoresEveryRowAndGatesOnMape) {
  ValidateOptions opts;
  opts.model = model_;
  opts.data = {sample_};
  const auto report = validate_report(opts);
  const TrainingData data = load_training_data({sample_});
  const auto& overall = report["layers"]["overall"];
  EXPECT_EQ(overall["n"].get<std::size_t>(), data.layers.size());
  EXPECT_GT(overall["mape_pct"].get<double>(), 0.0);
  EXPECT_FALSE(report["layers"]["per_gpu"].empty());
  EXPECT_FALSE(report.contains("e2e"));
  // Every scored row is counted against its interval, per op class and per GPU.
  const auto& intervals = report["layers"]["intervals"];
  EXPECT_EQ(intervals["overall"]["rows"].get<std::size_t>(), data.layers.size());
  std::size_t per_gpu_rows = 0;
  for (const auto& [gpu, c] : intervals["per_gpu"].items()) {
    EXPECT_TRUE(report["layers"]["per_gpu"].contains(gpu)) << gpu;
    per_gpu_rows += c["rows"].get<std::size_t>();
  }
  EXPECT_EQ(per_gpu_rows, data.layers.size());
  const double share = intervals["overall"]["coverage"].get<double>();
  EXPECT_GT(share, 0.5) << "rows the model was trained on lie mostly inside";
  EXPECT_LE(share, 1.0);

  opts.output = (dir_ / "validate.csv").string();
  opts.format = "csv";
  opts.fail_if_mape_above = 1e6;
  EXPECT_EQ(run_validate(opts), 0);
  EXPECT_NE(read_text_file(opts.output).find("layer,all,"), std::string::npos);
  opts.fail_if_mape_above = 1e-6;
  EXPECT_EQ(run_validate(opts), 1);
  // 0 is a gate like any other; unset is no gate.
  opts.fail_if_mape_above = 0.0;
  EXPECT_EQ(run_validate(opts), 1);
  opts.fail_if_mape_above.reset();
  EXPECT_EQ(run_validate(opts), 0);
}

// A file named twice (say by a wildcard and by name) is read once: its rows would otherwise
// sit on both sides of a fold.
TEST_F(TrainCommand, ProfiledFp32ConvolutionsAreReadAsTf32Allowed) {
  // Synthetic rows (not measurements): the same fp32 convolution from cnnperf profile, whose
  // cuDNN default math lets it use TF32, and from NeuSight; and an fp16 one from profile.
  const fs::path file = dir_ / "profiled_synthetic.csv";
  write_output(file.string(),
               "op,batch,c_in,h_in,w_in,c_out,kernel_h,kernel_w,stride_h,stride_w,pad_h,pad_w,"
               "dtype,latency_ms,gpu,source\n"
               "conv2d,32,64,56,56,64,3,3,1,1,1,1,fp32,0.08,h100-sxm5-80gb,cnnperf-profile\n"
               "conv2d,32,64,56,56,64,3,3,1,1,1,1,fp32,0.08,h100-sxm5-80gb,neusight\n"
               "conv2d,32,64,56,56,64,3,3,1,1,1,1,fp16,0.05,h100-sxm5-80gb,cnnperf-profile\n");
  const TrainingData data = load_training_data({file.string()});
  ASSERT_EQ(data.layers.size(), 3U);
  EXPECT_TRUE(data.layers[0].allow_tf32);
  EXPECT_FALSE(data.layers[1].allow_tf32);
  EXPECT_FALSE(data.layers[2].allow_tf32);
}

TEST_F(TrainCommand, AFileNamedTwiceIsReadOnce) {
  const TrainingData once = load_training_data({sample_});
  const TrainingData twice = load_training_data({sample_, sample_});
  EXPECT_EQ(twice.layers.size(), once.layers.size());
  EXPECT_EQ(twice.files.size(), 1U);
}

TEST_F(TrainCommand, BadInputIsInputError) {
  TrainOptions opts;
  opts.data = {(dir_ / "missing.csv").string()};
  EXPECT_THROW((void)train_report(opts), InputError);
  opts.data = {sample_};
  opts.regressor = "svm";
  EXPECT_THROW((void)train_report(opts), InputError);
  opts.regressor = "linear";
  opts.params = "{not json";
  EXPECT_THROW((void)train_report(opts), InputError);
  opts.params = R"({"no_such_key": 1})";
  EXPECT_THROW((void)train_report(opts), InputError);
  // Source sections: FAMILY/SOURCE holding an object the kind accepts.
  for (const char* bad : {R"({"convx/neusight": {}})", R"({"conv/": {}})", R"({"conv/a/b": {}})",
                          R"({"conv/neusight": 5})", R"({"conv/neusight": {"linear": 5}})",
                          R"({"conv/neusight": {"no_such_key": 1}})"}) {
    opts.params = bad;
    EXPECT_THROW((void)train_report(opts), InputError) << bad;
  }
  ValidateOptions v;
  v.model = (dir_ / "missing.json").string();
  v.data = {sample_};
  EXPECT_THROW((void)validate_report(v), InputError);
  // A measured time at or below 0 is corrupt input naming its line; an empty one is left out.
  {
    CsvTable table = read_csv(sample_);
    const std::size_t col = *table.column("latency_ms");
    const auto with_latency = [&](const std::string& value) {
      std::string text = csv_line(table.header) + "\n";
      for (std::size_t r = 0; r < 40; ++r) {
        auto row = table.rows[r];
        if (r == 3) row[col] = value;
        text += csv_line(row) + "\n";
      }
      const std::string path =
          (dir_ / ("latency_" + std::to_string(value.size()) + ".csv")).string();
      write_output(path, text);
      return path;
    };
    try {
      (void)load_training_data({with_latency("-0.5")});
      ADD_FAILURE() << "a negative latency_ms was accepted";
    } catch (const InputError& e) {
      EXPECT_NE(std::string(e.what()).find(":5: field 'latency_ms': expected a measured time above "
                                           "0 ms, got -0.5"),
                std::string::npos)
          << e.what();
    }
    EXPECT_EQ(load_training_data({with_latency("")}).skipped_rows, 1U);
  }
  // An output that is an input, or two outputs in one file, fail before any fit.
  opts.params.clear();
  opts.out = sample_;
  EXPECT_THROW((void)train_report(opts), InputError);
  opts.out = (dir_ / "same.json").string();
  opts.output = (dir_ / "." / "same.json").string();
  try {
    (void)train_report(opts);
    FAIL();
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("is also --out"), std::string::npos) << e.what();
  }
  EXPECT_FALSE(fs::exists(dir_ / "same.json"));
}

TEST_F(TrainCommand, ASourceSectionOfParamsReachesOnlyThatFamilysModel) {
  TrainOptions opts = small_tree_options();
  opts.params = R"({"max_depth": 8, "conv/neusight": {"dtree": {"max_depth": 3}},
                     "gemm/mlpredict": {"max_depth": 2}})";
  opts.out = (dir_ / "sections.json").string();
  const auto report = train_report(opts);
  // The sample holds NeuSight rows only: the MLPredict section is reported as unused.
  EXPECT_EQ(report.at("unused_params_sections"), nlohmann::json::array({"gemm/mlpredict"}));
  const auto file = nlohmann::json::parse(read_text_file(opts.out));
  std::map<std::string, int> depth;
  for (const auto& f : file["families"]) {
    depth[f["family"]] = f["regressor"]["params"]["max_depth"].get<int>();
  }
  EXPECT_EQ(depth.at("conv"), 3);
  EXPECT_EQ(depth.at("gemm"), 8);
  EXPECT_EQ(depth.at("pointwise"), 8);
}

TEST_F(TrainCommand, UnseenGpuCheckComparesTheThreeModelsAndTheModelFileKeepsTheChoice) {
  TrainOptions opts = small_tree_options();
  opts.unseen_gpu_check = true;
  opts.out = (dir_ / "unseen.json").string();
  const auto report = train_report(opts);
  ASSERT_EQ(report["unseen_gpu_check"].size(), 3u);  // conv, gemm, pointwise
  const auto model = LearnedModel::load(opts.out);
  for (const auto& c : report["unseen_gpu_check"]) {
    EXPECT_GT(c["rows"].get<std::size_t>(), 100u);
    const double learned = c["learned_mape_pct"].get<double>();
    const double analytical = c["analytical_mape_pct"].get<double>();
    ASSERT_TRUE(c["gpu_blind_mape_pct"].is_number()) << c.dump();
    const double blind = c["gpu_blind_mape_pct"].get<double>();
    EXPECT_GT(learned, 0.0);
    EXPECT_GT(analytical, 0.0);
    EXPECT_GT(blind, 0.0);
    EXPECT_NE(blind, learned) << "the GPU features matter to a tree on four GPUs";
    const std::string best = analytical < std::min(learned, blind) ? "analytical"
                             : blind < learned                     ? "gpu-blind"
                                                                   : "learned";
    EXPECT_EQ(c["unseen_gpu"], best);
    // Per held-out GPU: the rows add up, and the pooled MAPEs are their row-weighted means.
    std::size_t gpu_rows = 0;
    double learned_sum = 0;
    double analytical_sum = 0;
    double blind_sum = 0;
    ASSERT_GE(c["per_gpu"].size(), 2U) << c.dump();
    for (const auto& [gpu, g] : c["per_gpu"].items()) {
      const auto n = g["rows"].get<std::size_t>();
      gpu_rows += n;
      learned_sum += static_cast<double>(n) * g["learned_mape_pct"].get<double>();
      analytical_sum += static_cast<double>(n) * g["analytical_mape_pct"].get<double>();
      blind_sum += static_cast<double>(n) * g["gpu_blind_mape_pct"].get<double>();
    }
    EXPECT_EQ(gpu_rows, c["rows"].get<std::size_t>());
    const auto rows = static_cast<double>(gpu_rows);
    EXPECT_NEAR(learned_sum / rows, learned, 1e-6 * learned);
    EXPECT_NEAR(analytical_sum / rows, analytical, 1e-6 * analytical);
    EXPECT_NEAR(blind_sum / rows, blind, 1e-6 * blind);
    for (const auto& f : model->families()) {
      if (to_string(f.family) == c["family"]) {
        EXPECT_EQ(f.analytical_for_unseen_gpus, best == "analytical") << c.dump();
        EXPECT_EQ(f.gpu_blind_regressor != nullptr, best == "gpu-blind") << c.dump();
      }
    }
  }
  EXPECT_NE(model->metadata()["command_line"].get<std::string>().find("--unseen-gpu-check"),
            std::string::npos);
  // The table for unseen GPUs is fitted on the chosen candidate's held-out rows: one residual
  // per compared row, and its coverage scores them all.
  std::size_t compared = 0;
  for (const auto& c : report["unseen_gpu_check"]) compared += c["rows"].get<std::size_t>();
  EXPECT_EQ(report["unseen_gpu_intervals"]["overall"]["rows"].get<std::size_t>(), compared);
  const auto& section = model->metadata()["intervals"];
  EXPECT_EQ(section[kUnseenGpuIntervalsKey]["scheme"], "leave-gpu-out");
  const auto table = unseen_gpu_table_from_file_json(section, opts.out);
  ASSERT_TRUE(table.has_value());
  for (const char* op_class : {"conv", "gemm", "pointwise"}) {
    EXPECT_TRUE(table->families().contains(op_class)) << op_class;
  }
}

TEST_F(TrainCommand, AGpuTheModelWasNotFittedOnTakesTheUnseenGpuIntervals) {
  const auto model = LearnedModel::load(held_out_p4_model());
  const IntervalChoice choice = intervals_for(*model);
  ASSERT_TRUE(choice.table && choice.unseen_gpu_table);
  EXPECT_NE(choice.source.find("leave-gpu-out residuals for a GPU it was not fitted on"),
            std::string::npos)
      << choice.source;
  const std::string csv = (dir_ / "two_layers.csv").string();
  write_output(csv,
               "op,batch,c_in,h_in,w_in,c_out,kernel_h,kernel_w,pad_h,pad_w\n"
               "conv2d,8,64,28,28,128,3,3,1,1\nlinear,32,1024,1,1,4096,1,1,0,0\n");
  const std::vector<Layer> layers = parse_layers_csv(read_text_file(csv), csv).layers;
  const LayersRun run{Runtime::kCudnn, true, std::nullopt};
  for (const char* name : {"p4", "p100-pcie-16gb"}) {
    const GpuSpec gpu = GpuDatabase::bundled().resolve(name);
    const bool unseen = std::string(name) == "p4";
    EXPECT_EQ(model->unseen_gpu_layers(layers, gpu), std::vector<bool>(2, unseen)) << name;
    const auto rows = nlohmann::json::parse(
        predict_layers_text(csv, &gpu, *model, run, OutputFormat::kJson))["rows"];
    ASSERT_EQ(rows.size(), 2U);
    std::size_t narrow = 0;
    for (std::size_t i = 0; i < rows.size(); ++i) {
      // A layer outside the training data takes the unseen-GPU table on a seen GPU too.
      const bool wide = unseen || !rows[i]["in_distribution"].get<bool>();
      narrow += wide ? 0 : 1;
      const IntervalTable& expected_table = wide ? *choice.unseen_gpu_table : *choice.table;
      const IntervalTable& other_table = wide ? *choice.table : *choice.unseen_gpu_table;
      const double latency = rows[i]["latency_ms"].get<double>();
      const auto expected =
          expected_table.interval(interval_family(layers[i]), latency, kReferenceSource);
      const auto other =
          other_table.interval(interval_family(layers[i]), latency, kReferenceSource);
      ASSERT_TRUE(expected && other) << name << " " << i;
      EXPECT_NE(expected->lo_ms, other->lo_ms) << "the two tables must tell the cases apart";
      EXPECT_DOUBLE_EQ(rows[i]["latency_ms_lo"].get<double>(), expected->lo_ms) << name << i;
      EXPECT_DOUBLE_EQ(rows[i]["latency_ms_hi"].get<double>(), expected->hi_ms) << name << i;
    }
    if (!unseen) {
      EXPECT_GT(narrow, 0U) << "a layer inside the data on a seen GPU takes the main table";
    }
  }
  // A network's layers on the P4 take the unseen table too.
  PredictOptions net;
  net.net = "resnet18";
  net.gpu = "p4";
  net.model = held_out_p4_model();
  net.format = "json";
  net.output = (dir_ / "resnet18_p4.json").string();
  ASSERT_EQ(run_predict(net), 0);
  const auto prediction = nlohmann::json::parse(read_text_file(net.output));
  std::size_t checked = 0;
  for (const auto& layer : prediction["layers"]) {
    if (layer["op"] != "conv2d" || layer["latency_ms_lo"].is_null()) continue;
    const auto expected = choice.unseen_gpu_table->interval(
        "conv", layer["latency_ms"].get<double>(), kReferenceSource);
    ASSERT_TRUE(expected.has_value());
    EXPECT_DOUBLE_EQ(layer["latency_ms_lo"].get<double>(), expected->lo_ms);
    ++checked;
  }
  EXPECT_GT(checked, 10U);
}

TEST_F(TrainCommand, ValidateScoresIntervalsWithTheUnseenGpuTableOnTheGpusTheModelDidNotSee) {
  // The same model file without its unseen-GPU table: only the P4's coverage may differ (the
  // other GPUs' rows are the model's training rows, inside its data).
  const std::string without = (dir_ / "without_p4_no_unseen_table.json").string();
  auto doc = nlohmann::json::parse(read_text_file(held_out_p4_model()));
  doc["metadata"]["intervals"].erase(kUnseenGpuIntervalsKey);
  write_output(without, doc.dump());
  ValidateOptions opts;
  opts.data = {sample_};
  opts.model = held_out_p4_model();
  const auto with_table = validate_report(opts)["layers"]["intervals"];
  opts.model = without;
  const auto main_only = validate_report(opts)["layers"]["intervals"];
  const TrainingData data = load_training_data({sample_});
  EXPECT_EQ(with_table["overall"]["rows"].get<std::size_t>(), data.layers.size());
  ASSERT_TRUE(with_table["per_gpu"].contains("p4")) << with_table.dump();
  for (const auto& [gpu, c] : with_table["per_gpu"].items()) {
    EXPECT_EQ(c["rows"], main_only["per_gpu"][gpu]["rows"]) << gpu;
    if (gpu == "p4") {
      EXPECT_NE(c["inside"], main_only["per_gpu"][gpu]["inside"]) << "the P4 takes the other table";
    } else {
      EXPECT_EQ(c["inside"], main_only["per_gpu"][gpu]["inside"]) << gpu;
    }
  }
  EXPECT_NE(with_table["table"].get<std::string>().find("leave-gpu-out"), std::string::npos);
}

TEST_F(TrainCommand, UnseenGpuCheckSaysWhenAFamilyHasNoReferenceRows) {
  // SYNTHETIC relabelling: the sample's conv rows are given another source, so the check has
  // no NeuSight conv rows to cross-validate; the table says so instead of printing 0 %.
  const CsvTable sample = read_csv(sample_);
  const std::size_t op = *sample.column("op");
  const std::size_t source = *sample.column("source");
  std::string text = csv_line(sample.header) + "\n";
  for (auto row : sample.rows) {
    if (row[op] == "conv2d") row[source] = "cnnperf-profile";
    text += csv_line(row) + "\n";
  }
  TrainOptions opts = small_tree_options();
  opts.data = {(dir_ / "conv_relabelled.csv").string()};
  write_output(opts.data[0], text);
  opts.unseen_gpu_check = true;
  opts.output = (dir_ / "relabelled.txt").string();
  ASSERT_EQ(run_train(opts), 0);
  const std::string table = read_text_file(opts.output);
  EXPECT_NE(table.find("conv: no neusight rows to check on -> learned"), std::string::npos)
      << table;
  EXPECT_NE(table.find("gemm: dtree "), std::string::npos) << table;
  EXPECT_NE(table.find("per held-out GPU, learned / without GPU features / analytical MAPE %: "),
            std::string::npos)
      << table;
  // The unseen-GPU table's held-out coverage is printed under the cross-validation's.
  EXPECT_NE(table.find("80 % intervals for unseen GPUs (neusight rows, leave-gpu-out): "),
            std::string::npos)
      << table;
}

TEST_F(TrainCommand, TheModelKeepsAFloorPerGpuUnlessNoHostFloorIsAsked) {
  const auto with = LearnedModel::load(model_);
  EXPECT_EQ(with->metadata()["host_floor"], true);
  for (const auto& f : with->families()) {
    EXPECT_EQ(f.harness.floor_ms.size(), f.gpus.size()) << to_string(f.family);  // one source
    for (const auto& [key, floor] : f.harness.floor_ms) {
      EXPECT_EQ(key.first, "neusight");
      EXPECT_GT(floor, 0.0) << key.second << ": NeuSight's events bracket PyTorch's dispatch";
    }
  }
  TrainOptions opts = small_tree_options();
  opts.host_floor = false;
  opts.out = (dir_ / "no_floor.json").string();
  const auto report = train_report(opts);
  EXPECT_EQ(report["host_floor"], false);
  const auto without = LearnedModel::load(opts.out);
  for (const auto& f : without->families()) EXPECT_TRUE(f.harness.floor_ms.empty());
  EXPECT_NE(without->metadata()["command_line"].get<std::string>().find("--no-host-floor"),
            std::string::npos);
}

TEST_F(TrainCommand, PredictUsesTheGivenModelFile) {
  PredictOptions opts;
  opts.model = model_;
  EXPECT_EQ(select_model(opts)->name(), "model.json");
  opts.model.clear();
  opts.analytical = true;
  EXPECT_NE(select_model(opts)->name(), "model.json");
  // Both named: which one the user meant is unknown, so it is an error, not a silent pick.
  opts.model = model_;
  EXPECT_THROW((void)select_model(opts), InputError);
}

TEST_F(TrainCommand, ReportsEachSourceSeparatelyWhenTheDataMixSources) {
  // Real rows of both sources (their first 21 columns, the canonical ones + latency_ms, gpu,
  // source), every 2000th row of each file: the CV table must give each source its own line.
  const fs::path root(CNNPERF_SOURCE_DIR_FOR_TESTS);
  std::string text;
  for (const char* file : {"layers_neusight.csv.gz", "layers_mlpredict.csv.gz"}) {
    const CsvTable table = read_csv(root / "datasets" / file);
    auto first21 = [](const std::vector<std::string>& row) {
      return std::vector<std::string>(row.begin(), row.begin() + 21);
    };
    if (text.empty()) text = csv_line(first21(table.header)) + "\n";
    for (std::size_t r = 0; r < table.rows.size(); r += 2000) {
      if (table.get(r, "symmetric_pad_exact").value_or("1") == "1") {
        text += csv_line(first21(table.rows[r])) + "\n";
      }
    }
  }
  const std::string mixed = (dir_ / "mixed.csv").string();
  write_output(mixed, text);
  TrainOptions opts;
  opts.data = {mixed};
  opts.regressor = "dtree";
  opts.folds = 3;
  const auto report = train_report(opts);
  std::map<std::string, std::size_t> total;
  std::map<std::string, std::map<std::string, std::size_t>> by_source;
  for (const auto& row : report["cv"]) {
    if (row.contains("source")) {
      by_source[row["family"]][row["source"]] = row["n"].get<std::size_t>();
    } else if (row["gpu"] == "all") {
      total[row["family"]] = row["n"].get<std::size_t>();
    }
  }
  ASSERT_TRUE(by_source.count("conv"));
  for (const auto& [family, sources] : by_source) {
    EXPECT_EQ(sources.size(), 2U) << family;
    std::size_t n = 0;
    for (const auto& [source, rows] : sources) n += rows;
    EXPECT_EQ(n, total[family]) << family;
  }
}

TEST_F(TrainCommand, ValidateWithoutAModelScoresWhatPredictWouldUse) {
  ValidateOptions opts;
  // The rows of the bundled calibration (models/eager_overhead.json's command line).
  opts.e2e = {
      (fs::path(CNNPERF_SOURCE_DIR_FOR_TESTS) / "datasets" / "e2e_torchvision.csv").string(),
      (fs::path(CNNPERF_SOURCE_DIR_FOR_TESTS) / "datasets" / "e2e_timm.csv.gz").string()};
  const auto report = validate_report(opts);
  EXPECT_EQ(report["e2e"]["latency_model"], "analytical");
  EXPECT_FALSE(report.contains("model"));
  // The same rows and overhead as the calibration's in-sample figure in the bundled file.
  const auto overhead = nlohmann::json::parse(
      read_text_file(fs::path(CNNPERF_SOURCE_DIR_FOR_TESTS) / "models" / "eager_overhead.json"));
  EXPECT_NEAR(report["e2e"]["overall"]["mape_pct"].get<double>(),
              overhead["calibration"]["in-sample"]["mape_pct"].get<double>(), 1e-6);
  // The 2-4 GPU rows are scored apart, with the bundled data-parallel terms.
  EXPECT_EQ(report["e2e"]["overall"]["n"].get<std::size_t>(), 652U + 170U);  // + timm eager NCHW
  ASSERT_TRUE(report["e2e"].contains("data_parallel"));
  EXPECT_EQ(report["e2e"]["data_parallel"]["overall"]["n"].get<std::size_t>(), 1296U);
  EXPECT_LT(report["e2e"]["data_parallel"]["overall"]["mape_pct"].get<double>(), 30.0);
  ValidateOptions layers;
  layers.data = {sample_};
  const auto scored = validate_report(layers);
  EXPECT_EQ(scored["model"], kBundledLearnedModel);
  EXPECT_GT(scored["layers"]["rows"].get<std::size_t>(), 1000U);
}

TEST_F(TrainCommand, ValidateLeavesOutMultiGpuRowsAModelWithoutDataParallelTermsCannotPredict) {
  ValidateOptions opts;
  opts.model = model_;  // trained without --e2e: no data-parallel calibration
  opts.e2e = {
      (fs::path(CNNPERF_SOURCE_DIR_FOR_TESTS) / "datasets" / "e2e_torchvision.csv").string()};
  const auto report = validate_report(opts);
  EXPECT_FALSE(report["e2e"].contains("data_parallel"));
  EXPECT_EQ(report["e2e"]["unmodelled_multi_gpu_rows"].get<std::size_t>(), 1296U);
  EXPECT_EQ(report["e2e"]["overall"]["n"].get<std::size_t>(), 652U);
}

TEST_F(TrainCommand, OneDefaultModelForLayersAndNetworks) {
  // One default on both paths, so that a layer gets one kernel_ms whichever asks.
  PredictOptions opts;
  opts.layers_csv = sample_;
  EXPECT_EQ(select_model(opts)->name(), "analytical");
  PredictOptions net;
  net.net = "resnet18";
  EXPECT_EQ(select_model(net)->name(), "analytical");
  opts.model = "models/cnnperf_default.json";
  EXPECT_EQ(select_model(opts)->name(), "cnnperf_default.json");
  opts.analytical = true;
  EXPECT_THROW((void)select_model(opts), InputError);
}

TEST_F(TrainCommand, LayerRowsArePredictedAsKernelTimeWhateverTheirSource) {
  // predict --layers reads only the reference models: a row's source (who measured it) does
  // not change its kernel time; only validate scores a row as its harness timed it.
  const std::string head = "op,batch,c_in,h_in,w_in,c_out,kernel_h,kernel_w,pad_h,pad_w";
  const std::string conv = "conv2d,8,64,28,28,128,3,3,1,1";
  const std::string linear = "linear,32,1024,1,1,4096,1,1,0,0";
  const auto table = [](const std::string& name, const std::string& text) {
    write_output(name, text);
    return parse_layers_csv(text, name);
  };
  const std::string plain_csv = (dir_ / "plain_rows.csv").string();
  const std::string with_ml_csv = (dir_ / "rows_with_source.csv").string();
  const LayerTable plain = table(plain_csv, head + "\n" + conv + "\n" + linear + "\n");
  const LayerTable with_ml =
      table(with_ml_csv, head + ",source\n" + conv + ",neusight\n" + linear + ",mlpredict\n");

  const std::string path =
      (fs::path(CNNPERF_SOURCE_DIR_FOR_TESTS) / "models" / "cnnperf_default.json").string();
  const auto full = LearnedModel::load(path);
  const auto lean = LearnedModel::load(path, /*reference_source_only=*/true);
  const GpuSpec seen = GpuDatabase::bundled().resolve("v100-pcie-32gb");
  const GpuSpec unseen = GpuDatabase::bundled().resolve("t4");
  const LayersRun run{Runtime::kCudnn, true, std::nullopt};
  for (const GpuSpec* gpu : {&seen, &unseen}) {
    EXPECT_EQ(predict_layers_text(plain_csv, gpu, *lean, run, OutputFormat::kCsv),
              predict_layers_text(plain_csv, gpu, *full, run, OutputFormat::kCsv))
        << gpu->name;
    const auto rows = nlohmann::json::parse(
        predict_layers_text(with_ml_csv, gpu, *lean, run, OutputFormat::kJson))["rows"];
    const auto kernels = lean->predict_network_layers(with_ml.layers, *gpu);
    ASSERT_EQ(rows.size(), 2U);
    for (std::size_t i = 0; i < rows.size(); ++i) {
      EXPECT_DOUBLE_EQ(rows[i]["kernel_ms"].get<double>(), kernels[i].kernel_ms) << gpu->name;
    }
  }
  // validate's path: the mlpredict row carries TensorFlow's session floor as its overhead.
  const auto ml = full->predict_layers_as(with_ml.layers, seen, {"neusight", "mlpredict"});
  const auto ref = full->predict_layers(with_ml.layers, seen);
  EXPECT_GT(ml[1].latency_ms(), 2 * ref[1].latency_ms()) << "TensorFlow's session floor";
  EXPECT_GT(ml[1].overhead_ms, ref[1].overhead_ms);
}

TEST_F(TrainCommand, ASourceWithoutTrainingRowsPredictsAsTheReferenceSource) {
  // The fixture model saw NeuSight rows only: an mlpredict or unknown source must not reach
  // the trees as a one-hot state they never saw.
  const auto model = LearnedModel::load(model_);
  const GpuSpec gpu = GpuDatabase::bundled().resolve("p100-pcie-16gb");
  Layer conv;
  conv.op = Op::kConv2d;
  conv.batch = 16;
  conv.c_in = 64;
  conv.c_out = 128;
  conv.h_in = conv.w_in = 28;
  conv.kernel_h = conv.kernel_w = 3;
  conv.pad_h = conv.pad_w = 1;
  const std::vector<Layer> layers(3, conv);
  const auto plain = model->predict_layers(layers, gpu);
  const auto as = model->predict_layers_as(layers, gpu, {"neusight", "mlpredict", "no-such"});
  for (std::size_t i = 0; i < layers.size(); ++i) {
    EXPECT_EQ(as[i].latency_ms(), plain[0].latency_ms()) << i;
  }
  // Kernel time (cnnperf profile's rows) is predicted alike, without the reference's harness.
  const auto profiled =
      model->predict_layers_as(layers, gpu, std::vector<std::string>(3, "cnnperf-profile"));
  EXPECT_EQ(profiled[0].kernel_ms, plain[0].kernel_ms);
  EXPECT_EQ(profiled[0].overhead_ms, 0.0);
  // validate's path (predict_rows on the rows' own sources) agrees with it.
  TrainingData data;
  data.layers = layers;
  data.gpus.assign(3, gpu);
  data.gpu_names.assign(3, gpu.name);
  data.sources = {"neusight", "no-such", "cnnperf-profile"};
  data.latency_ms.assign(3, 1.0);
  std::vector<const FamilyModel*> conv_models;
  for (const auto& f : model->families()) {
    if (f.family == OpFamily::kConv) conv_models.push_back(&f);
  }
  const auto rows = predict_rows(conv_models, data, {0, 1, 2}, model->feature_spec());
  EXPECT_NEAR(rows[0], plain[0].latency_ms(), 1e-12);
  EXPECT_NEAR(rows[2], plain[0].kernel_ms, 1e-12);  // as the reference source, no floor
  EXPECT_THROW((void)model->predict_layers_as(layers, gpu, {"neusight"}), Error);
}

}  // namespace
}  // namespace cnnperf
