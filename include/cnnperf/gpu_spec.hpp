// SPDX-License-Identifier: Apache-2.0
// The GPU database: one entry per NVIDIA GPU with the specs the models need.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace cnnperf {

/// Specifications of one GPU. Peaks are at the boost clock unless `clock_assumed` says
/// otherwise. Every number's source is in `sources` (field name -> citation).
struct GpuSpec {
  std::string name;            ///< database key, e.g. "a100-sxm4-40gb"
  std::string display_name;    ///< e.g. "NVIDIA A100-SXM4-40GB"
  std::string family;          ///< default-variant group, e.g. "a100"
  std::string architecture;    ///< kepler|maxwell|pascal|volta|turing|ampere|ada|hopper|blackwell
  std::string segment;         ///< datacenter|desktop|workstation|jetson
  std::string compute_capability;  ///< e.g. "8.0"
  int release_year = 0;
  int sm_count = 0;
  int fp32_cores_per_sm = 0;
  double base_clock_mhz = 0;
  double boost_clock_mhz = 0;
  double fp32_tflops = 0;          ///< non-tensor FP32 peak
  double fp16_tflops = 0;          ///< non-tensor FP16 peak (half2 on CUDA cores)
  double tensor_fp16_tflops = 0;   ///< dense FP16 tensor-core peak, 0 when none
  double memory_bandwidth_gbs = 0; ///< DRAM bandwidth, GB/s (1e9 bytes/s)
  double memory_gb = 0;
  double l2_cache_mb = 0;
  double shared_mem_per_sm_kb = 0; ///< max configurable shared memory per SM
  int registers_per_sm = 65536;    ///< 32-bit registers
  int max_threads_per_sm = 2048;
  int max_blocks_per_sm = 32;
  double tdp_w = 0;                ///< board power limit (default), W
  double idle_power_w = 0;         ///< typical idle board power, W
  std::string clock_assumed = "boost";  ///< which clock the peaks assume
  std::vector<std::string> aliases;     ///< strings the GPU reports itself as
  std::map<std::string, std::string> sources;  ///< field -> source
};

/// A loaded database.
class GpuDatabase {
 public:
  /// Loads a database JSON file (schema in docs/data-formats.md). Throws InputError.
  static GpuDatabase load(const std::string& path);
  /// The bundled database (models/gpus.json), loaded once.
  static const GpuDatabase& bundled();

  [[nodiscard]] const std::vector<GpuSpec>& all() const { return gpus_; }
  /// Resolves a name or alias (case-insensitive, vendor words and punctuation ignored) or a
  /// family name (to its default variant). nullopt when nothing matches.
  [[nodiscard]] std::optional<GpuSpec> find(std::string_view name) const;
  /// Up to `count` database names closest to `name` (edit distance on normalized names).
  [[nodiscard]] std::vector<std::string> closest(std::string_view name, int count = 3) const;
  /// find(), or a path to a JSON spec file; throws InputError with the closest names.
  [[nodiscard]] GpuSpec resolve(std::string_view name_or_file) const;

 private:
  std::vector<GpuSpec> gpus_;
  std::map<std::string, std::string> family_defaults_;  ///< family -> default entry name
};

/// Normalizes a GPU name for matching: lowercase, vendor words (nvidia, geforce, tesla,
/// quadro) and punctuation removed.
[[nodiscard]] std::string normalize_gpu_name(std::string_view name);

}  // namespace cnnperf
