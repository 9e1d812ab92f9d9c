// SPDX-License-Identifier: Apache-2.0
// End-to-end: input that is not UTF-8, networks of which nothing or part is predicted, and
// `validate` telling rows a model was trained on from others (issue 29, items 3, 5 and 9).
// The layer CSVs here are SYNTHETIC shapes (no measurement) except where said; the ONNX
// files are Debian's libonnx-testdata.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <set>
#include <string>

#include <nlohmann/json.hpp>

#include "cli_runner.hpp"
#include "cnnperf/common/io.hpp"
#include "cnnperf/ml/results.hpp"
#include "cnnperf/ml/training_data.hpp"
#include "cnnperf/ml/training_row_set.hpp"
#include "cnnperf/predict/predict.hpp"

namespace cnnperf {
namespace {

using cli_test::run_cnnperf;
using cli_test::temp_dir;

namespace fs = std::filesystem;

const char* const kOnnxTestData = "/usr/share/libonnx-testdata/data";

// A synthetic layer CSV whose name cell and file name hold a 0xFF byte (not UTF-8).
fs::path non_utf8_layers() {
  const fs::path path = temp_dir() / "layers_\xff.csv";
  std::ofstream(path) << "name,op,batch,c_in,h_in,w_in,c_out,kernel_h,kernel_w,stride_h,"
                         "stride_w,pad_h,pad_w\nconv\xff"
                         "1,conv2d,1,3,224,224,64,7,7,2,2,3,3\n";
  return path;
}

TEST(BadInputCli, NonUtf8TextIsWrittenAsReplacementCharactersInJson) {
  const fs::path layers = non_utf8_layers();
  const auto r = run_cnnperf("predict --layers '" + layers.string() +
                             "' --gpu a100 --analytical --format json");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto doc = nlohmann::json::parse(r.out);  // valid UTF-8, or this throws
  EXPECT_EQ(doc["rows"][0]["name"],
            "conv\xEF\xBF\xBD"
            "1");
  EXPECT_NE(doc["source"].get<std::string>().find("layers_\xEF\xBF\xBD.csv"), std::string::npos);
  // Table and CSV carry the bytes as given.
  const auto csv = run_cnnperf("predict --layers '" + layers.string() +
                               "' --gpu a100 --analytical --format csv");
  ASSERT_EQ(csv.exit_code, 0) << csv.err;
  EXPECT_NE(csv.out.find("conv\xff"
                         "1"),
            std::string::npos);
}

TEST(BadInputCli, ANonUtf8FileNameWorksInNetsShowJson) {
  const fs::path net = temp_dir() / "net_\xff.json";
  const auto list = run_cnnperf("nets show alexnet --layer-list --output '" + net.string() + "'");
  ASSERT_EQ(list.exit_code, 0) << list.err;
  const auto r = run_cnnperf("nets show '" + net.string() + "' --format json");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_TRUE(nlohmann::json::accept(r.out)) << r.out;  // valid UTF-8 JSON
  EXPECT_NE(r.out.find("net_\xEF\xBF\xBD"), std::string::npos) << r.out;
}

TEST(BadInputCli, ANetworkOfWhichNothingIsPredictedIsExitTwo) {
  const fs::path onnx = fs::path(kOnnxTestData) / "pytorch-converted/test_Conv3d/model.onnx";
  if (!fs::exists(onnx)) GTEST_SKIP() << onnx << " absent (Debian package libonnx-testdata)";
  for (const char* format : {"table", "json", "csv"}) {
    const auto r =
        run_cnnperf("predict --net " + onnx.string() +
                    " --gpu a100 --skip-unsupported --max-latency-ms 1000 --format " + format);
    EXPECT_EQ(r.exit_code, 2) << format << ": " << r.out << r.err;
    EXPECT_TRUE(r.out.empty()) << r.out;
    EXPECT_NE(r.err.find("nothing to predict: all 1 computing node was skipped (first: node '3' "
                         "(Conv): a 3-D window"),
              std::string::npos)
        << r.err;
  }
}

TEST(BadInputCli, SkippedNodesAreCountedInEveryFormat) {
  // One Add predicted, one training-domain Gradient node skipped.
  const fs::path onnx = fs::path(kOnnxTestData) / "simple/test_gradient_of_add/model.onnx";
  if (!fs::exists(onnx)) GTEST_SKIP() << onnx << " absent (Debian package libonnx-testdata)";
  const std::string args = "predict --net " + onnx.string() + " --gpu a100 --skip-unsupported ";
  const auto json = run_cnnperf(args + "--format json");
  ASSERT_EQ(json.exit_code, 0) << json.err;
  const auto doc = nlohmann::json::parse(json.out);
  ASSERT_EQ(doc["skipped_nodes"].size(), 1u) << json.out;
  EXPECT_EQ(doc["skipped_nodes"][0]["name"], "my_gradient");
  EXPECT_EQ(doc["skipped_nodes"][0]["op_type"], "ai.onnx.preview.training:Gradient");
  EXPECT_EQ(doc["layers"].size(), 1u);
  const auto table = run_cnnperf(args + "--format table");
  ASSERT_EQ(table.exit_code, 0) << table.err;
  EXPECT_NE(table.out.find("skipped     1 ONNX node without a prediction "
                           "(ai.onnx.preview.training:Gradient) beside 1 predicted layers"),
            std::string::npos)
      << table.out;
  const auto csv = run_cnnperf(args + "--format csv");
  ASSERT_EQ(csv.exit_code, 0) << csv.err;
  EXPECT_NE(csv.out.find(",model,skipped_nodes,schema_version\n"), std::string::npos) << csv.out;
  const auto total = csv.out.find("\ntotal,total,");
  ASSERT_NE(total, std::string::npos) << csv.out;
  // 1 skipped, then the output's schema version.
  EXPECT_NE(csv.out.find(",1," + std::to_string(kPredictionSchemaVersion) + "\n", total),
            std::string::npos)
      << csv.out;
}

// REAL measured rows: every 150th row of datasets/layers_neusight.csv.gz trains a small
// model; validate then scores those rows and others (offset by 75) and tells them apart.
TEST(BadInputCli, ValidateScoresRowsSeenInTrainingApart) {
  const CsvTable table =
      read_csv(fs::path(CNNPERF_SOURCE_DIR_FOR_TESTS) / "datasets" / "layers_neusight.csv.gz");
  std::string train_text = csv_line(table.header) + "\n";
  std::string mixed_text = train_text;
  std::size_t train_rows = 0;
  for (std::size_t r = 0; r < table.rows.size(); r += 150) {
    train_text += csv_line(table.rows[r]) + "\n";
    ++train_rows;
    mixed_text += csv_line(table.rows[r]) + "\n";
    if (r + 75 < table.rows.size()) mixed_text += csv_line(table.rows[r + 75]) + "\n";
  }
  const fs::path train = temp_dir() / "seen_train.csv";
  const fs::path mixed = temp_dir() / "seen_mixed.csv";
  const fs::path model = temp_dir() / "seen_model.json";
  write_output(train.string(), train_text);
  write_output(mixed.string(), mixed_text);
  const auto trained = run_cnnperf("train --data " + train.string() +
                                   " --regressor dtree --params '{\"max_depth\": 4}' --folds 2 "
                                   "--out " +
                                   model.string() + " --format json");
  ASSERT_EQ(trained.exit_code, 0) << trained.err;

  // What validate must find: the mixed rows whose layer, GPU and source a training row has.
  const TrainingData train_data = load_training_data({train.string()});
  const TrainingData mixed_data = load_training_data({mixed.string()});
  std::set<std::uint64_t> trained_on;
  for (std::size_t i = 0; i < train_data.layers.size(); ++i) {
    trained_on.insert(training_row_hash(train_data, i));
  }
  std::size_t expected_seen = 0;
  for (std::size_t i = 0; i < mixed_data.layers.size(); ++i) {
    expected_seen += trained_on.count(training_row_hash(mixed_data, i));
  }
  ASSERT_GE(expected_seen, train_data.layers.size());
  ASSERT_LT(expected_seen, mixed_data.layers.size());

  const std::string args = "validate --model " + model.string() + " --data " + mixed.string();
  const auto json = run_cnnperf(args + " --format json");
  ASSERT_EQ(json.exit_code, 0) << json.err;
  // What report reads: the typed result gives back every member validate wrote.
  const auto doc = nlohmann::json::parse(json.out);
  EXPECT_EQ(nlohmann::json(doc.get<ValidateResult>()), doc);
  const auto rows = doc["layers"]["training_rows"];
  EXPECT_EQ(rows["recorded"], true);
  EXPECT_EQ(rows["model_rows"].get<std::size_t>(), trained_on.size());
  EXPECT_EQ(rows["seen"]["rows"].get<std::size_t>(), expected_seen);
  EXPECT_EQ(rows["unseen"]["rows"].get<std::size_t>(), mixed_data.layers.size() - expected_seen);
  EXPECT_EQ(rows["seen"]["overall"]["n"].get<std::size_t>(), expected_seen);
  const auto text = run_cnnperf(args);
  ASSERT_EQ(text.exit_code, 0) << text.err;
  EXPECT_NE(text.out.find("training rows: " + std::to_string(expected_seen) + " of the " +
                          std::to_string(mixed_data.layers.size()) +
                          " rows scored were seen in training"),
            std::string::npos)
      << text.out;
  EXPECT_NE(text.out.find("unseen in training"), std::string::npos) << text.out;
  const auto csv = run_cnnperf(args + " --format csv");
  ASSERT_EQ(csv.exit_code, 0) << csv.err;
  EXPECT_NE(csv.out.find("layer,seen in training," + std::to_string(expected_seen) + ","),
            std::string::npos)
      << csv.out;
  (void)train_rows;
}

TEST(BadInputCli, ValidateSaysWhenTheModelRecordsNoTrainingRows) {
  // A model file without the record: the small model's, with its metadata member removed.
  const CsvTable table =
      read_csv(fs::path(CNNPERF_SOURCE_DIR_FOR_TESTS) / "datasets" / "layers_neusight.csv.gz");
  std::string text = csv_line(table.header) + "\n";
  for (std::size_t r = 0; r < table.rows.size(); r += 300) text += csv_line(table.rows[r]) + "\n";
  const fs::path data = temp_dir() / "norecord.csv";
  const fs::path model = temp_dir() / "norecord_model.json";
  write_output(data.string(), text);
  ASSERT_EQ(run_cnnperf("train --data " + data.string() +
                        " --regressor dtree --params '{\"max_depth\": 3}' --folds 2 --out " +
                        model.string() + " --format json")
                .exit_code,
            0);
  auto doc = nlohmann::json::parse(read_text_file(model));
  ASSERT_TRUE(doc["metadata"].contains(kTrainingRowsKey));
  doc["metadata"].erase(kTrainingRowsKey);
  write_output(model.string(), doc.dump());
  const std::string args = "validate --model " + model.string() + " --data " + data.string();
  const auto json = run_cnnperf(args + " --format json");
  ASSERT_EQ(json.exit_code, 0) << json.err;
  const auto rows = nlohmann::json::parse(json.out)["layers"]["training_rows"];
  EXPECT_EQ(rows["recorded"], false);
  EXPECT_EQ(rows["note"], "the model does not record its training rows");
  const auto table_out = run_cnnperf(args);
  EXPECT_NE(table_out.out.find("training rows: the model does not record its training rows"),
            std::string::npos)
      << table_out.out;
  const auto csv = run_cnnperf(args + " --format csv");
  EXPECT_NE(csv.err.find("the model does not record its training rows"), std::string::npos)
      << csv.err;
}

}  // namespace
}  // namespace cnnperf
