// SPDX-License-Identifier: Apache-2.0
// Every feature the learned models use is documented in docs/methodology.md.
#include <gtest/gtest.h>

#include <string>

#include "cnnperf/features.hpp"
#include "cnnperf/io.hpp"

namespace cnnperf {
namespace {

TEST(FeatureDocs, EveryFeatureOfEveryNonPtxGroupIsInMethodology) {
  const std::string doc =
      read_text_file(std::string(CNNPERF_SOURCE_DIR_FOR_TESTS) + "/docs/methodology.md");
  FeatureSpec spec = FeatureSpec::parse("all");
  spec.ptx = false;  // docs/ptx.md describes the instruction-mix features
  const auto names = feature_names(spec);
  ASSERT_GT(names.size(), 40u);
  for (const auto& name : names) {
    EXPECT_NE(doc.find("| `" + name + "` |"), std::string::npos) << name;
    EXPECT_TRUE(feature_docs().count(name)) << name;
  }
}

}  // namespace
}  // namespace cnnperf
