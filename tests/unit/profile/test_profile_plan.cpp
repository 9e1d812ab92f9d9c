// SPDX-License-Identifier: Apache-2.0
// Sweep parsing, job planning, algorithm requests, enum names, external ids and the join of
// CUPTI-style records (records built in memory here are synthetic).
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "../input_error_of.hpp"
#include "cnnperf/profile/profile.hpp"
#include "profile/profile_command.hpp"

namespace cnnperf {
namespace {

std::filesystem::path temp_file(const std::string& name, const std::string& text) {
  const auto path = std::filesystem::temp_directory_path() / ("cnnperf_test_" + name);
  std::ofstream(path) << text;
  return path;
}

TEST(Sweep, RangesAndLists) {
  const SweepAxis a = parse_sweep_axis("c_in=64:256:64");
  EXPECT_EQ(a.field, "c_in");
  EXPECT_EQ(a.values, (std::vector<std::string>{"64", "128", "192", "256"}));
  const SweepAxis b = parse_sweep_axis("kernel = 1, 3,5:7");
  EXPECT_EQ(b.values, (std::vector<std::string>{"1", "3", "5", "6", "7"}));
  const SweepAxis c = parse_sweep_axis("dtype=fp32,fp16");
  EXPECT_EQ(c.values.size(), 2U);
}

TEST(Sweep, BadSpecsNameTheProblem) {
  EXPECT_THROW((void)parse_sweep_axis("c_in"), InputError);
  EXPECT_THROW((void)parse_sweep_axis("colour=1"), InputError);
  EXPECT_THROW((void)parse_sweep_axis("c_in=8:4"), InputError);
  EXPECT_THROW((void)parse_sweep_axis("c_in=1:8:0"), InputError);
  EXPECT_THROW((void)parse_sweep_axis("c_in=abc"), InputError);
  EXPECT_THROW((void)parse_sweep_axis("dtype=fp8"), InputError);
  try {
    (void)parse_sweep_axis("colour=1");
    FAIL();
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("unknown field 'colour'"), std::string::npos);
  }
}

// Both were accepted: a second --sweep of a field silently replaced the first, and values no
// layer can have became one invalid_problem job each.
TEST(Sweep, OverlappingAxesAndImpossibleValuesAreInputErrors) {
  auto error_of = [](const std::vector<std::string>& specs) {
    return test::input_error_of([&] { (void)expand_sweep(specs, 1); });
  };
  EXPECT_EQ(error_of({"kernel=3", "kernel=5"}),
            "sweep: 'kernel=5': kernel_h is already swept by 'kernel=3'; give all its "
            "values in one axis (kernel=A,B,...)");
  EXPECT_NE(error_of({"hw=8", "w_in=4"}).find("w_in is already swept by 'hw=8'"),
            std::string::npos);
  EXPECT_NE(error_of({"pad=1", "padding=0"}).find("pad_h is already swept"), std::string::npos);
  EXPECT_EQ(error_of({"kernel_h=3", "kernel_w=5"}), "no error");
  EXPECT_EQ(error_of({"c_in=-5:5:1"}),
            "sweep: 'c_in=-5:5:1': c_in -5: expected a positive integer");
  EXPECT_EQ(error_of({"pad=-1,0"}), "sweep: 'pad=-1,0': pad -1: expected a non-negative integer");
  EXPECT_EQ(error_of({"pad=0"}), "no error");
  EXPECT_EQ(error_of({"bias=0,2"}), "sweep: 'bias=0,2': bias 2: expected 0 or 1");
  // Past cuDNN's 32-bit sizes: an error before anything runs, not an invalid_problem job.
  EXPECT_EQ(error_of({"c_in=64,99999999999"}),
            "sweep: 'c_in=64,99999999999': c_in 99999999999: expected at most 2147483647 "
            "(cuDNN's 32-bit sizes)");
  EXPECT_EQ(error_of({"c_in=2147483647"}), "no error");
}

TEST(Sweep, CartesianProductOverDefaults) {
  const auto layers = expand_sweep({"c_in=16,32", "hw=7:14:7", "kernel=1,3", "pad=1"}, 8);
  ASSERT_EQ(layers.size(), 8U);
  for (const Layer& l : layers) {
    EXPECT_EQ(l.op, Op::kConv2d);
    EXPECT_EQ(l.batch, 8);
    EXPECT_EQ(l.h_in, l.w_in);
    EXPECT_EQ(l.kernel_h, l.kernel_w);
    EXPECT_EQ(l.pad_h, 1);
    EXPECT_EQ(l.c_out, 1);  // DESIGN default for unspecified sizes
  }
  EXPECT_EQ(layers.front().c_in, 16);
  EXPECT_EQ(layers.back().c_in, 32);
  EXPECT_EQ(layers.back().kernel_h, 3);
  EXPECT_THROW((void)expand_sweep({"c_in=1:1000", "c_out=1:1000"}, 1), InputError);
}

TEST(Sweep, EveryFieldSetsItsLayerMembers) {
  // Distinct values, so a field that set the wrong member would show.
  const Layer l = expand_sweep({"batch=2", "c_in=3", "c_out=6", "h_in=9", "w_in=10", "kernel_h=3",
                                "kernel_w=5", "stride_h=2", "stride_w=1", "pad_h=1", "pad_w=2",
                                "dilation_h=2", "dilation_w=1", "groups=3", "bias=1", "dtype=fp16"},
                               1)
                      .at(0);
  EXPECT_EQ(std::vector<std::int64_t>({l.batch, l.c_in, l.c_out, l.h_in, l.w_in, l.kernel_h,
                                       l.kernel_w, l.stride_h, l.stride_w, l.pad_h, l.pad_w,
                                       l.dilation_h, l.dilation_w, l.groups}),
            std::vector<std::int64_t>({2, 3, 6, 9, 10, 3, 5, 2, 1, 1, 2, 2, 1, 3}));
  EXPECT_TRUE(l.bias);
  EXPECT_EQ(l.dtype, DType::kFp16);
  // The shortcuts set both members.
  const Layer s =
      expand_sweep({"hw=12", "kernel=3", "stride=2", "padding=1", "dilation=2"}, 4).at(0);
  EXPECT_EQ(std::vector<std::int64_t>({s.batch, s.h_in, s.w_in, s.kernel_h, s.kernel_w, s.stride_h,
                                       s.stride_w, s.pad_h, s.pad_w, s.dilation_h, s.dilation_w}),
            std::vector<std::int64_t>({4, 12, 12, 3, 3, 2, 2, 1, 1, 2, 2}));
}

TEST(AlgoRequest, Parses) {
  EXPECT_EQ(parse_algo_request("heuristic").kind, AlgoRequest::Kind::kHeuristic);
  EXPECT_EQ(parse_algo_request("ALL").kind, AlgoRequest::Kind::kAll);
  const AlgoRequest r = parse_algo_request("winograd,implicit-gemm,winograd");
  ASSERT_EQ(r.kind, AlgoRequest::Kind::kNamed);
  EXPECT_EQ(r.named, (std::vector<ConvAlgo>{ConvAlgo::kWinograd, ConvAlgo::kImplicitGemm}));
  EXPECT_THROW((void)parse_algo_request("fastest"), InputError);
}

TEST(Enums, RoundTrip) {
  for (ConvAlgo a : all_conv_algos()) EXPECT_EQ(conv_algo_from_string(to_string(a)), a);
  for (Outcome o : {Outcome::kPassed, Outcome::kNotSupported, Outcome::kInvalidProblem,
                    Outcome::kFailed, Outcome::kNotRun}) {
    EXPECT_EQ(outcome_from_string(to_string(o)), o);
  }
  EXPECT_EQ(to_string(Outcome::kNotSupported), "not_supported");
  EXPECT_EQ(layout_from_string("NHWC"), Layout::kNhwc);
  EXPECT_THROW((void)layout_from_string("chwn"), InputError);
  EXPECT_EQ(parse_layouts("nchw,nhwc,nchw").size(), 2U);
  EXPECT_EQ(all_conv_algos().size(), 8U);
}

TEST(ExternalId, EncodesJobAndSample) {
  const std::uint64_t id = make_external_id(41, 1234);
  EXPECT_NE(id, 0U);
  const auto parts = split_external_id(id);
  ASSERT_TRUE(parts);
  EXPECT_EQ(parts->job, 41U);
  EXPECT_EQ(parts->sample, 1234U);
  EXPECT_EQ(split_external_id(make_external_id(0, 0))->job, 0U);
  EXPECT_FALSE(split_external_id(0));
  EXPECT_THROW((void)make_external_id(1, 1U << 24), Error);
}

TEST(KernelJoin, AttachesExternalIdsAndGroupsBySample) {
  std::vector<KernelRecord> kernels(4);
  kernels[0].correlation_id = 10;
  kernels[0].start_ns = 500;
  kernels[1].correlation_id = 11;
  kernels[1].start_ns = 100;
  kernels[2].correlation_id = 12;  // same sample as 11, started earlier
  kernels[2].start_ns = 50;
  kernels[3].correlation_id = 99;  // launched outside any push: no external id
  const std::vector<ExternalCorrelation> correlations{{10, make_external_id(3, 0)},
                                                      {11, make_external_id(3, 1)},
                                                      {12, make_external_id(3, 1)},
                                                      {13, make_external_id(4, 0)}};
  attach_external_ids(kernels, correlations);
  EXPECT_EQ(kernels[0].external_id, make_external_id(3, 0));
  EXPECT_EQ(kernels[3].external_id, 0U);
  const auto groups = group_by_sample(kernels, 3);
  ASSERT_EQ(groups.size(), 2U);
  ASSERT_EQ(groups.at(1).size(), 2U);
  EXPECT_EQ(groups.at(1)[0].correlation_id, 12U);  // sorted by start
  EXPECT_TRUE(group_by_sample(kernels, 4).empty());
}

TEST(PlanJobs, CsvRowsBecomeJobsWithPrechecks) {
  const auto csv = temp_file("plan.csv",
                             "op,batch,c_in,h_in,w_in,c_out,kernel_h,kernel_w,pad_h,pad_w,groups\n"
                             "conv2d,2,64,56,56,64,3,3,1,1,1\n"
                             "conv2d,2,64,56,56,64,3,3,1,1,1\n"
                             "relu,2,64,56,56,64,1,1,0,0,1\n"
                             "conv2d,2,64,56,56,64,3,3,1,1,1\n");
  ProfileOptions o;
  o.layers_csv = csv.string();
  o.layout = "nchw,nhwc";
  auto jobs = plan_jobs(o);
  // 2 distinct rows (conv, relu) x 2 layouts; the repeated conv rows are folded.
  ASSERT_EQ(jobs.size(), 4U);
  EXPECT_EQ(jobs[0].duplicates, 3);
  EXPECT_EQ(jobs[0].layer.layout, Layout::kNchw);
  EXPECT_EQ(jobs[1].layer.layout, Layout::kNhwc);
  EXPECT_TRUE(jobs[0].precheck.ok());
  EXPECT_EQ(jobs[2].precheck.outcome, Outcome::kNotRun);
  EXPECT_NE(jobs[2].precheck.reason.find("relu"), std::string::npos);
  for (std::size_t i = 0; i < jobs.size(); ++i) EXPECT_EQ(jobs[i].id, i);

  o.keep_duplicates = true;
  o.layout = "nchw";
  o.algo = "all";
  o.precision = "fp16";
  jobs = plan_jobs(o);
  EXPECT_EQ(jobs.size(), 4U * 8U);
  EXPECT_EQ(jobs[1].algo_request, "implicit_precomp_gemm");
  EXPECT_EQ(jobs[0].layer.dtype, DType::kFp16);
  std::filesystem::remove(csv);
}

TEST(PlanJobs, InvalidProblemsAreRowsNotErrors) {
  ProfileOptions o;
  o.sweep = {"c_in=6", "c_out=4", "groups=4", "hw=8"};  // 6 channels in 4 groups: invalid
  const auto jobs = plan_jobs(o);
  ASSERT_EQ(jobs.size(), 1U);
  EXPECT_EQ(jobs[0].precheck.outcome, Outcome::kInvalidProblem);
  EXPECT_FALSE(jobs[0].precheck.reason.empty());
}

TEST(PlanJobs, NeedsExactlyOneSource) {
  ProfileOptions o;
  EXPECT_THROW((void)plan_jobs(o), InputError);
  o.sweep = {"c_in=3"};
  o.layers_csv = "x.csv";
  EXPECT_THROW((void)plan_jobs(o), InputError);
  // Options the rows carry themselves were silently ignored; --batch still sets a sweep's batch.
  const auto error_of = [](const ProfileOptions& opts) {
    try {
      (void)plan_jobs(opts);
    } catch (const InputError& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  ProfileOptions sized;
  sized.sweep = {"c_in=3", "hw=8"};
  sized.input_size = "320x320";
  EXPECT_EQ(error_of(sized).rfind("--input-size: applies to --net only", 0), 0U) << error_of(sized);
  sized.input_size.clear();
  sized.batch = 8;
  ASSERT_EQ(error_of(sized), "no error");
  EXPECT_EQ(plan_jobs(sized).at(0).layer.batch, 8);
  sized.sweep.emplace_back("batch=1,2");
  EXPECT_EQ(error_of(sized).rfind("--batch: the sweep sets batch itself", 0), 0U)
      << error_of(sized);
  sized.sweep.back() = "Batch=1,2";  // the field as the sweep parser reads it, not its spelling
  EXPECT_EQ(error_of(sized),
            "--batch: the sweep sets batch itself (--sweep 'Batch=1,2'); give one of the two");
  const auto csv = temp_file("batch.csv", "op,batch,c_in,h_in,w_in,c_out\nconv2d,38,8,8,8,8\n");
  ProfileOptions rows;
  rows.layers_csv = csv.string();
  rows.batch = 8;
  EXPECT_EQ(error_of(rows).rfind("--batch: --layers rows carry their own batch", 0), 0U)
      << error_of(rows);
  std::filesystem::remove(csv);
  ProfileOptions bad_precision;
  bad_precision.sweep = {"c_in=3"};
  bad_precision.precision = "int8";
  EXPECT_THROW((void)plan_jobs(bad_precision), InputError);
}

TEST(PlanJobs, ResNet50FromTheZoo) {
  ProfileOptions o;
  o.net = "resnet50";
  const auto jobs = plan_jobs(o);
  std::size_t convs = 0;
  for (const auto& j : jobs) convs += static_cast<std::size_t>(j.duplicates);
  EXPECT_EQ(convs, 53U);        // torchvision resnet50: 53 convolutions (incl. 4 downsample)
  EXPECT_LT(jobs.size(), 53U);  // repeated bottleneck shapes are folded
  for (const auto& j : jobs) {
    EXPECT_EQ(j.layer.op, Op::kConv2d);
    EXPECT_TRUE(j.precheck.ok()) << j.source << ": " << j.precheck.reason;
  }
}

}  // namespace
}  // namespace cnnperf
