// SPDX-License-Identifier: Apache-2.0
// Feature groups: every feature documented in docs/methodology.md, and the --features text.
#include <gtest/gtest.h>

#include <algorithm>
#include <string>

#include "../input_error_of.hpp"
#include "cnnperf/common/io.hpp"
#include "cnnperf/ml/features.hpp"
#include "cnnperf/model/gpu_spec.hpp"
#include "cnnperf/model/layer.hpp"

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

TEST(FeatureSpecText, GroupsRoundTripInOneOrderAndBadListsAreInputErrors) {
  // Model files record to_string(); a model is read back through parse().
  EXPECT_EQ(FeatureSpec::parse("default").to_string(), "layer,analytical,gpu,source,setup");
  EXPECT_EQ(FeatureSpec::parse("-gpu,+quant").to_string(), "layer,analytical,source,quant,setup");
  EXPECT_EQ(FeatureSpec::parse("setup,Layer").to_string(), "layer,setup");
  const FeatureSpec gpu_only = FeatureSpec::parse("gpu");
  EXPECT_TRUE(gpu_only.gpu);
  EXPECT_FALSE(gpu_only.layer || gpu_only.analytical || gpu_only.source || gpu_only.setup ||
               gpu_only.ptx || gpu_only.quant);
  EXPECT_EQ(test::input_error_of([] { (void)FeatureSpec::parse("layer,shape"); }),
            "features: unknown group 'shape' (expected layer, analytical, gpu, source, setup, "
            "ptx, quant, default or all)");
  EXPECT_EQ(test::input_error_of(
                [] { (void)FeatureSpec::parse("-layer,-analytical,-gpu,-source,-setup"); }),
            "features: expected at least one feature group");
}

TEST(SetupFeatures, OneHotsFollowTheDefaultGroupsAndOldSpecsLeaveThemOut) {
  const FeatureSpec defaults = FeatureSpec::parse("default");
  EXPECT_TRUE(defaults.setup);
  EXPECT_FALSE(FeatureSpec::parse("-setup").setup);
  // A model file that lists its groups without setup has it off.
  const FeatureSpec old = FeatureSpec::parse("layer,analytical,gpu,source");
  EXPECT_FALSE(old.setup);
  const auto old_names = feature_names(old);
  const auto names = feature_names(defaults);
  ASSERT_EQ(names.size(), old_names.size() + 10);
  EXPECT_TRUE(std::equal(old_names.begin(), old_names.end(), names.begin()));
  EXPECT_EQ(names[old_names.size()], "act_relu");
  EXPECT_EQ(names.back(), "pad_asymmetric");
  EXPECT_EQ(FeatureSpec::parse(defaults.to_string()).setup, true);

  FeatureSpec only = FeatureSpec::parse("setup");
  ASSERT_EQ(feature_names(only).size(), 10u);
  Layer l;
  l.c_in = l.c_out = 16;
  const GpuSpec gpu = *GpuDatabase::bundled().find("v100-sxm2-16gb");
  EXPECT_EQ(feature_row(l, gpu, "mlpredict", only), std::vector<double>(10, 0.0));
  l.activation = Activation::kSigmoid;
  l.pass = Pass::kTraining;
  l.optimizer = Optimizer::kMomentum;
  l.kernel_h = l.kernel_w = 2;
  l.h_in = l.w_in = 8;
  l.pad_h_end = 1;  // TensorFlow SAME, stride 1, even kernel: top 0, bottom 1
  const std::vector<double> want{0, 0, 1, 0, 1, 0, 0, 0, 0, 1};
  EXPECT_EQ(feature_row(l, gpu, "mlpredict", only), want);
}

}  // namespace
}  // namespace cnnperf
