// SPDX-License-Identifier: Apache-2.0
// The report's kind dispatch: each result kind cnnperf writes picks its section writer, a file
// without a kind (an older cnnperf's) gets the one its fields name, and a file naming a kind
// without the member that kind's writer reads is an input error, not a crash.
#include <gtest/gtest.h>

#include <string>

#include "../input_error_of.hpp"
#include "cnnperf/report/report.hpp"

namespace cnnperf {
namespace {

ReportKind kind(const std::string& json) {
  return detect_report_kind({"r.json", json});
}

TEST(ReportKind, EachNamedKindPicksItsWriter) {
  EXPECT_EQ(kind(R"({"kind":"train_metrics","cv":[]})"), ReportKind::kTrainMetrics);
  EXPECT_EQ(kind(R"({"kind":"validation_metrics","power":{}})"), ReportKind::kValidateMetrics);
  EXPECT_EQ(kind(R"({"kind":"ptx_analysis","launches":[]})"), ReportKind::kPtxAnalysis);
  EXPECT_EQ(kind(R"({"kind":"gpu_spec","gpu":{"name":"t4"}})"), ReportKind::kGpuSpec);
  EXPECT_EQ(kind(R"({"kind":"network_layers","network":"a"})"), ReportKind::kNetworkLayers);
  for (const char* generic : {"gpu_list", "network_list", "profile_rows", "profile_plan",
                              "algo_study", "feature_export", "power_calibration"}) {
    EXPECT_EQ(kind(std::string(R"({"kind":")") + generic + "\"}"), ReportKind::kGeneric) << generic;
  }
}

// The kind a file names wins over the fields the legacy detection looks at.
TEST(ReportKind, NamedKindWinsOverLegacyFields) {
  EXPECT_EQ(kind(R"({"kind":"gpu_list","gpu":{},"query":"t4"})"), ReportKind::kGeneric);
  EXPECT_EQ(kind(R"({"kind":"train_metrics","launches":[],"cv":[]})"), ReportKind::kTrainMetrics);
  // A kind that is not text is no kind: the fields decide.
  EXPECT_EQ(kind(R"({"kind":3,"launches":[]})"), ReportKind::kPtxAnalysis);
}

TEST(ReportKind, NamedKindWithoutItsMemberIsAnInputError) {
  auto error_of = [](const std::string& json) {
    return test::input_error_of([&] { (void)render_report({{"r.json", json}}); });
  };
  EXPECT_EQ(error_of(R"({"kind":"train_metrics"})"), "r.json: cv: missing (expected an array)");
  EXPECT_EQ(error_of(R"({"kind":"ptx_analysis","launches":{}})"),
            "r.json: launches: got {} (expected an array)");
  EXPECT_EQ(error_of(R"({"kind":"gpu_spec","gpu":"t4"})"),
            "r.json: gpu: got \"t4\" (expected an object)");
  EXPECT_EQ(error_of(R"({"kind":"train_metrics","cv":[]})"), "no error");
}

// Power scores alone have none of the validate layout's metric rows: they get the generic one.
TEST(ReportKind, PowerOnlyValidationUsesTheGenericLayout) {
  const std::string html =
      render_report({{"v.json", R"({"kind":"validation_metrics","power":{"rows":3}})"}});
  EXPECT_NE(html.find("<h2>1. validation metrics</h2>"), std::string::npos);
  EXPECT_NE(html.find("<h3>Fields</h3>"), std::string::npos);
  EXPECT_NE(html.find("<th>power.rows</th><td>3</td>"), std::string::npos);
}

// The same document with and without its kind renders the same sections; the provenance
// table shows the kind of the file that names it.
TEST(ReportKind, LegacyFileRendersLikeTheTypedOne) {
  const std::string legacy = R"({"schema_version":1,"launches":[]})";
  const std::string typed = R"({"schema_version":1,"kind":"ptx_analysis","launches":[]})";
  std::string with_kind = render_report({{"r.json", typed}});
  const std::string kind_row = "<tr><th>kind</th><td>ptx_analysis</td></tr>\n";
  const auto at = with_kind.find(kind_row);
  ASSERT_NE(at, std::string::npos);
  with_kind.erase(at, kind_row.size());
  EXPECT_EQ(with_kind, render_report({{"r.json", legacy}}));
}

// A section writer parses its input into the typed result of its kind: a member of the wrong
// type, or a damaged GPU entry, is an input error naming the file and the member.
TEST(ReportKind, ATypedResultsDamagedMemberIsAnInputErrorNamingTheFile) {
  auto error_of = [](const std::string& json) {
    return test::input_error_of([&] { (void)render_report({{"r.json", json}}); });
  };
  EXPECT_NE(error_of(R"({"kind":"network_prediction","gpu":{"name":"t4","segment":"x"}})")
                .find("r.json: gpu."),
            std::string::npos);
  EXPECT_NE(error_of(R"({"kind":"prediction_sweep","rows":[{"batch":"eight"}]})").find("r.json"),
            std::string::npos);
  EXPECT_NE(error_of(R"({"kind":"plan","profile":"lazy","candidates":[]})").find("r.json: profile"),
            std::string::npos);
}

}  // namespace
}  // namespace cnnperf
