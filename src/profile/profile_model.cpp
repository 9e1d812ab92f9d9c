// SPDX-License-Identifier: Apache-2.0
// Profile data model: enum names, external correlation ids, joining CUPTI records, algorithm
// requests.
#include <algorithm>
#include <array>
#include <unordered_map>

#include "cnnperf/model/layer_io.hpp"
#include "cnnperf/profile/profile.hpp"

namespace cnnperf {
namespace {

constexpr std::array<const char*, 5> kOutcomeNames{"passed", "not_supported", "invalid_problem",
                                                   "failed", "not_run"};
constexpr std::array<const char*, 8> kAlgoNames{
    "implicit_gemm", "implicit_precomp_gemm", "gemm", "direct", "fft", "fft_tiling",
    "winograd",      "winograd_nonfused"};

std::string normalize_name(std::string_view text) {
  std::string s = to_lower(text);
  std::replace(s.begin(), s.end(), '-', '_');
  return s;
}

constexpr int kSampleBits = 24;

}  // namespace

std::string to_string(Outcome outcome) {
  return kOutcomeNames.at(static_cast<int>(outcome));
}

Outcome outcome_from_string(std::string_view text) {
  const std::string s = normalize_name(text);
  for (std::size_t i = 0; i < kOutcomeNames.size(); ++i) {
    if (s == kOutcomeNames[i]) return static_cast<Outcome>(i);
  }
  throw InputError("outcome: expected passed|not_supported|invalid_problem|failed|not_run, got '" +
                   std::string(text) + "'");
}

std::string to_string(ConvAlgo algo) {
  return kAlgoNames.at(static_cast<int>(algo));
}

ConvAlgo conv_algo_from_string(std::string_view text) {
  const std::string s = normalize_name(text);
  for (std::size_t i = 0; i < kAlgoNames.size(); ++i) {
    if (s == kAlgoNames[i]) return static_cast<ConvAlgo>(i);
  }
  std::string expected = "heuristic, all";
  for (const char* name : kAlgoNames) expected += std::string(", ") + name;
  throw ParameterError(
      "algo", "unknown algorithm '" + std::string(text) + "' (expected one of: " + expected + ")");
}

const std::vector<ConvAlgo>& all_conv_algos() {
  static const std::vector<ConvAlgo> algos{ConvAlgo::kImplicitGemm, ConvAlgo::kImplicitPrecompGemm,
                                           ConvAlgo::kGemm,         ConvAlgo::kDirect,
                                           ConvAlgo::kFft,          ConvAlgo::kFftTiling,
                                           ConvAlgo::kWinograd,     ConvAlgo::kWinogradNonfused};
  return algos;
}

std::uint64_t make_external_id(std::uint64_t job, std::uint32_t sample) {
  if (sample >= (1U << kSampleBits) || job >= (std::uint64_t{1} << 39)) {
    throw Error("external correlation id out of range (job " + std::to_string(job) + ", sample " +
                std::to_string(sample) + ")");
  }
  // job + 1 so that no real id is 0, which CUPTI-less launches carry.
  return ((job + 1) << kSampleBits) | sample;
}

std::optional<ExternalIdParts> split_external_id(std::uint64_t external_id) {
  if (external_id == 0 || (external_id >> kSampleBits) == 0) return std::nullopt;
  ExternalIdParts parts;
  parts.job = (external_id >> kSampleBits) - 1;
  parts.sample = static_cast<std::uint32_t>(external_id & ((1U << kSampleBits) - 1));
  return parts;
}

void attach_external_ids(std::vector<KernelRecord>& kernels,
                         const std::vector<ExternalCorrelation>& correlations) {
  std::unordered_map<std::uint32_t, std::uint64_t> by_correlation;
  by_correlation.reserve(correlations.size());
  for (const auto& c : correlations) by_correlation[c.correlation_id] = c.external_id;
  for (auto& k : kernels) {
    auto it = by_correlation.find(k.correlation_id);
    if (it != by_correlation.end()) k.external_id = it->second;
  }
}

std::map<std::uint32_t, std::vector<KernelRecord>> group_by_sample(
    const std::vector<KernelRecord>& kernels, std::uint64_t job) {
  std::map<std::uint32_t, std::vector<KernelRecord>> groups;
  for (const auto& k : kernels) {
    const auto parts = split_external_id(k.external_id);
    if (parts && parts->job == job) groups[parts->sample].push_back(k);
  }
  for (auto& [sample, group] : groups) {
    std::stable_sort(group.begin(), group.end(), [](const KernelRecord& a, const KernelRecord& b) {
      return a.start_ns < b.start_ns;
    });
  }
  return groups;
}

AlgoRequest parse_algo_request(std::string_view text) {
  AlgoRequest request;
  const std::string s = normalize_name(text);
  if (s.empty() || s == "heuristic") return request;
  if (s == "all") {
    request.kind = AlgoRequest::Kind::kAll;
    return request;
  }
  request.kind = AlgoRequest::Kind::kNamed;
  std::size_t start = 0;
  while (start <= s.size()) {
    const std::size_t comma = std::min(s.find(',', start), s.size());
    const ConvAlgo algo = conv_algo_from_string(s.substr(start, comma - start));
    if (std::find(request.named.begin(), request.named.end(), algo) == request.named.end()) {
      request.named.push_back(algo);
    }
    start = comma + 1;
  }
  return request;
}

std::string ProfileJob::key() const {
  std::string key;
  for (const auto& field : layer_csv_fields(layer)) key += field + ",";
  return key + to_string(layer.layout) + "," + algo_request;
}

}  // namespace cnnperf
