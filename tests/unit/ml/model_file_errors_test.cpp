// SPDX-License-Identifier: Apache-2.0
// A corrupt model file is bad input named by its element's path, never the JSON library's
// internal message; unknown keys are refused. The model is trained here on a small subset of
// REAL measured rows (every 200th row of datasets/layers_neusight.csv.gz, copied unchanged);
// the corruptions are edits of that file.
#include <unistd.h>

#include <filesystem>
#include <functional>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "cnnperf/common/error.hpp"
#include "cnnperf/common/io.hpp"
#include "cnnperf/common/json_io.hpp"
#include "cnnperf/ml/learned_model.hpp"
#include "cnnperf/ml/training_row_set.hpp"
#include "train/train_command.hpp"

namespace cnnperf {
namespace {

namespace fs = std::filesystem;

class ModelFileErrors : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    dir_ = fs::temp_directory_path() / ("cnnperf_model_errors_" + std::to_string(::getpid()));
    fs::create_directories(dir_);
    const CsvTable table =
        read_csv(fs::path(CNNPERF_SOURCE_DIR_FOR_TESTS) / "datasets" / "layers_neusight.csv.gz");
    std::string text = csv_line(table.header) + "\n";
    for (std::size_t r = 0; r < table.rows.size(); r += 200) text += csv_line(table.rows[r]) + "\n";
    const std::string sample = (dir_ / "every200.csv").string();
    write_output(sample, text);
    TrainOptions opts;
    opts.data = {sample};
    opts.regressor = "dtree";
    opts.params = R"({"max_depth": 3})";
    opts.folds = 2;
    opts.out = (dir_ / "model.json").string();
    opts.output = (dir_ / "train.json").string();
    opts.format = "json";
    ASSERT_EQ(run_train(opts), 0);
    model_ = nlohmann::json::parse(read_text_file(opts.out));
  }
  static void TearDownTestSuite() {
    std::error_code ec;
    fs::remove_all(dir_, ec);
  }

  // The message LearnedModel::load gives for the model with `edit` applied; "" when it loads.
  static std::string load_error(const std::function<void(nlohmann::json&)>& edit) {
    nlohmann::json doc = model_;
    edit(doc);
    const std::string path = (dir_ / "edited.json").string();
    write_output(path, json_text(doc, -1));
    try {
      (void)LearnedModel::load(path);
    } catch (const InputError& e) {
      return e.what();
    }
    return "";
  }

  static inline fs::path dir_;
  static inline nlohmann::json model_;
};

TEST_F(ModelFileErrors, AWrongTypeIsNamedByTheElementsPath) {
  const std::string where = (dir_ / "edited.json").string() + ": families[0].regressor.";
  EXPECT_EQ(load_error([](auto& d) { d["families"][0]["regressor"]["params"]["max_depth"] = "x"; }),
            where + "params.max_depth: expected an integer in [0, 1000], got \"x\"");
  EXPECT_EQ(load_error([](auto& d) {
              d["families"][0]["regressor"]["model"]["tree"]["threshold"][1] = "x";
            }),
            where + "model.tree.threshold[1]: expected a number, got string");
  EXPECT_EQ(load_error([](auto& d) {
              d["families"][0]["regressor"]["model"]["tree"]["left"] = nlohmann::json::object();
            }),
            where + "model.tree.left: expected an array of integers, got object");
  EXPECT_EQ(load_error([](auto& d) {
              d["families"][0]["regressor"]["model"]["feature_importances"][0] = nullptr;
            }),
            where + "model.feature_importances[0]: expected a number, got null");
  EXPECT_EQ(
      load_error([](auto& d) { d["families"][0]["regressor"]["model"]["tree"].erase("value"); }),
      where + "model.tree.value: missing");
  EXPECT_EQ(load_error([](auto& d) { d["metadata"] = nlohmann::json::array(); }),
            (dir_ / "edited.json").string() + ": metadata: expected an object, got array");
}

TEST_F(ModelFileErrors, UnknownKeysAreRefused) {
  const std::string path = (dir_ / "edited.json").string();
  const std::string top =
      load_error([](auto& d) { d["eager_overheads"] = nlohmann::json::object(); });
  EXPECT_EQ(top.rfind(path + ": eager_overheads: unknown key (expected one of schema_version", 0),
            0u)
      << top;
  const std::string family = load_error([](auto& d) { d["families"][1]["rowz"] = 3; });
  EXPECT_EQ(family.rfind(path + ": families[1].rowz: unknown key", 0), 0u) << family;
}

// Every element of the file, changed to each other JSON type or dropped: each edit loads, or
// fails as bad input that names the file; none leaks the JSON library's message.
TEST_F(ModelFileErrors, NoEditLeaksTheJsonLibrarysMessage) {
  std::vector<nlohmann::json::json_pointer> pointers;
  std::function<void(const nlohmann::json&, const nlohmann::json::json_pointer&)> walk =
      [&](const nlohmann::json& v, const nlohmann::json::json_pointer& at) {
        if (!at.empty()) pointers.push_back(at);
        if (v.is_object()) {
          for (const auto& [key, child] : v.items()) walk(child, at / key);
        } else if (v.is_array()) {
          // The first two elements of each array: the rest take the same readers.
          for (std::size_t i = 0; i < v.size() && i < 2; ++i) walk(v[i], at / i);
        }
      };
  walk(model_, nlohmann::json::json_pointer());
  ASSERT_GT(pointers.size(), 100u);
  const std::vector<nlohmann::json> replacements = {
      "x", 1.5, -1, nullptr, true, nlohmann::json::array(), nlohmann::json::object()};
  std::size_t refused = 0;
  for (const auto& at : pointers) {
    std::vector<std::function<void(nlohmann::json&)>> edits;
    for (const auto& r : replacements) {
      edits.emplace_back([&at, r](nlohmann::json& d) { d[at] = r; });
    }
    edits.emplace_back([&at](nlohmann::json& d) {
      auto& parent = d[at.parent_pointer()];
      if (parent.is_object()) parent.erase(at.back());
    });
    for (const auto& edit : edits) {
      std::string message;
      try {
        message = load_error(edit);
      } catch (const std::exception& e) {
        ADD_FAILURE() << at.to_string() << ": not an InputError: " << e.what();
        continue;
      }
      if (message.empty()) continue;
      ++refused;
      EXPECT_EQ(message.find("json.exception"), std::string::npos)
          << at.to_string() << ": " << message;
      EXPECT_EQ(message.rfind((dir_ / "edited.json").string() + ": ", 0), 0u)
          << at.to_string() << ": " << message;
    }
  }
  EXPECT_GT(refused, pointers.size());  // most edits are refused, not silently loaded
}

TEST_F(ModelFileErrors, TheModelRecordsItsTrainingRows) {
  const auto set = TrainingRowSet::from_metadata(model_["metadata"], "model.json: metadata");
  ASSERT_TRUE(set.has_value());
  EXPECT_GT(set->rows(), 100u);
  EXPECT_LE(set->rows(), model_["metadata"]["rows"].get<std::size_t>());
}

}  // namespace
}  // namespace cnnperf
