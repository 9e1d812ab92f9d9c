// SPDX-License-Identifier: Apache-2.0
// The P-CNN-style user-satisfaction score (SoC) of deployment choices: pure scoring of
// already-predicted candidates, no model loading. docs/methodology.md ("plan") gives the
// formula, the profile defaults and which parts come from P-CNN (Song et al., HPCA 2017).
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

namespace cnnperf {

/// Version of the JSON/CSV layout printed by `cnnperf plan`.
inline constexpr int kPlanSchemaVersion = 1;
/// Where the score is described; the JSON's "method".
inline constexpr const char* kPlanMethod =
    "docs/methodology.md, section 'plan: user satisfaction (SoC)'";

/// What kind of task the network serves; picks the latency satisfaction and the weights.
enum class TaskProfile { kRealtime, kInteractive, kBackground };
[[nodiscard]] std::string to_string(TaskProfile profile);
/// "realtime" | "interactive" | "background"; throws InputError otherwise.
[[nodiscard]] TaskProfile task_profile_from_string(std::string_view text);

/// Weights of the three satisfaction terms; non-negative, summing to 1 once normalized.
struct SocWeights {
  double latency = 0;
  double energy = 0;
  double accuracy = 0;
};

/// Parses "latency=0.5,energy=0.2,accuracy=0.3" (any order, keys not given are 0) and
/// normalizes the weights to sum 1. Throws InputError naming the offending part for unknown
/// or repeated keys, a missing '=', a value that is not a finite number >= 0, or all zeros.
[[nodiscard]] SocWeights parse_soc_weights(std::string_view text);

/// How latency turns into satisfaction.
enum class LatencyShape {
  kDeadline,    ///< 1 within the deadline, 0 (and infeasible) beyond: real-time frames
  kSoftTarget,  ///< 1 within the target, target/latency beyond: a user waiting for an answer
  kThroughput,  ///< relative time per image (log scale) among the candidates: batch jobs
};
[[nodiscard]] std::string to_string(LatencyShape shape);

/// The documented defaults of a profile (docs/methodology.md).
struct ProfileDefaults {
  TaskProfile profile = TaskProfile::kInteractive;
  SocWeights weights;
  LatencyShape latency_shape = LatencyShape::kSoftTarget;
  double latency_target_ms = 0;  ///< deadline or soft target of the batch latency, ms; 0: none
  std::string target_source;     ///< where the target comes from
};
[[nodiscard]] const ProfileDefaults& profile_defaults(TaskProfile profile);

/// Hard limits the user sets; a candidate beyond any of them is infeasible.
struct SocTolerances {
  std::optional<double> max_latency_ms;          ///< batch latency (what a user waits), ms
  std::optional<double> max_energy_per_image_j;  ///< energy_j / batch, J
  std::optional<double> min_top1_percent;        ///< published top-1, percent
};

/// Everything the score needs besides the candidates.
struct SocSettings {
  TaskProfile profile = TaskProfile::kInteractive;
  SocWeights weights;  ///< normalized
  LatencyShape latency_shape = LatencyShape::kSoftTarget;
  double latency_target_ms = 0;  ///< deadline / soft target in effect, ms; 0: none
  SocTolerances tolerances;
};

/// The profile's defaults with the user's overrides: `weights` replaces the profile weights
/// (normalized); a max_latency_ms tolerance replaces the real-time deadline and caps the
/// interactive target. Throws InputError for a non-positive tolerance.
[[nodiscard]] SocSettings make_soc_settings(TaskProfile profile,
                                            const std::optional<SocWeights>& weights,
                                            const SocTolerances& tolerances);

/// One deployment choice with its predicted figures (one batch, i.e. one step).
struct PlanCandidate {
  std::string network;
  std::string gpu;
  std::int64_t batch = 1;
  std::string precision = "fp32";
  std::optional<double> power_limit_w;  ///< W; nullopt: uncapped
  double latency_ms = 0;                ///< end-to-end latency of one batch, ms
  double energy_j = 0;                  ///< energy of one batch, J
  double avg_power_w = 0;               ///< W
  std::optional<double> top1_percent;   ///< published top-1; nullopt: unknown
  double min_memory_gb = 0;             ///< lower bound of device memory needed, GB (1e9 B)
  double gpu_memory_gb = 0;             ///< the GPU's memory, GB as marketed; 0: unknown
};

/// Satisfaction of each term in [0, 1]; nullopt where undefined (unknown accuracy).
struct SocTerms {
  std::optional<double> latency;
  std::optional<double> energy;
  std::optional<double> accuracy;
};

/// A scored candidate.
struct ScoredCandidate {
  PlanCandidate candidate;
  double energy_per_image_j = 0;  ///< energy_j / batch, J
  SocTerms terms;
  bool feasible = true;
  std::string infeasible_reason;  ///< "" when feasible; reasons joined by "; "
  std::optional<double> score;    ///< sum of weight x term; nullopt when infeasible
  int rank = 0;                   ///< 1-based; feasible candidates first
};

/// Ranked candidates and what the user should know about them.
struct PlanScoring {
  std::vector<ScoredCandidate> ranked;
  std::vector<std::string> warnings;
};

/// Scores and ranks candidates: feasible ones by score (ties: lower latency, then lower
/// energy per image, then names), then the infeasible ones with their reasons. Energy, and
/// latency under kThroughput, are normalized on a log scale between the best and the worst
/// feasible candidate; accuracy linearly between the lowest and highest feasible top-1.
[[nodiscard]] PlanScoring score_candidates(const std::vector<PlanCandidate>& candidates,
                                           const SocSettings& settings);

/// A ranking and where its numbers came from: what `plan` prints.
struct PlanResult {
  SocSettings settings;
  std::string mode;
  std::string latency_model;            ///< LatencyModel::name()
  std::string power_model;              ///< NetworkPrediction::power_model
  std::string accuracy_source;          ///< the accuracy table file
  std::vector<std::string> gpus;        ///< resolved database names, in the order given
  std::size_t candidates_total = 0;     ///< candidates scored
  std::size_t candidates_feasible = 0;  ///< of them feasible
  /// Best first: every candidate scored, or the first of them (first_candidates).
  std::vector<ScoredCandidate> ranked;
  std::vector<std::string> warnings;
};

/// `result` with its first `top` candidates (0: all); the counts stay those of the whole.
[[nodiscard]] PlanResult first_candidates(PlanResult result, std::size_t top);

/// The JSON `plan` writes (kind "plan"), and its parser: plan_result_from_json(to_json(r))
/// gives r back but the candidates' min_memory_gb and gpu_memory_gb, which the JSON leaves
/// out. A member the layout lacks takes the struct's default (files of older versions, made-up
/// fixtures); one of the wrong type throws nlohmann's type_error, an unknown profile or
/// latency shape InputError.
[[nodiscard]] nlohmann::ordered_json to_json(const PlanResult& result);
[[nodiscard]] PlanResult plan_result_from_json(const nlohmann::ordered_json& doc);
/// "deadline" | "soft_target" | "throughput" (to_string); throws InputError otherwise.
[[nodiscard]] LatencyShape latency_shape_from_string(std::string_view text);

}  // namespace cnnperf
