// SPDX-License-Identifier: Apache-2.0
// The GPU database: one entry per NVIDIA GPU with the specs the models need.
#pragma once

#include <cstddef>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json_fwd.hpp>

namespace cnnperf {

/// The A100's boost clock, MHz: where a cost counted in SM cycles was first measured in µs.
inline constexpr double kReferenceBoostClockMhz = 1410;

/// Specifications of one GPU. Peaks are at the boost clock unless `clock_assumed` says
/// otherwise. Every number's source is in `sources` (field name -> citation).
struct GpuSpec {
  std::string name;          ///< database key, e.g. "a100-sxm4-40gb"
  std::string display_name;  ///< e.g. "NVIDIA A100-SXM4-40GB"
  std::string family;        ///< default-variant group, e.g. "a100"
  std::string architecture;  ///< kepler|maxwell|pascal|volta|turing|ampere|ada|hopper|blackwell
  std::string segment;       ///< datacenter|desktop|workstation|jetson
  std::string compute_capability;  ///< e.g. "8.0"
  int release_year = 0;
  int sm_count = 0;
  int fp32_cores_per_sm = 0;
  double base_clock_mhz = 0;
  double boost_clock_mhz = 0;
  double fp32_tflops = 0;           ///< non-tensor FP32 peak
  double fp16_tflops = 0;           ///< non-tensor FP16 peak (half2 on CUDA cores)
  double tensor_fp16_tflops = 0;    ///< dense FP16 tensor-core peak, 0 when none
  double tensor_bf16_tflops = 0;    ///< dense BF16 tensor-core peak (FP32 accumulate), 0: none
  double tensor_tf32_tflops = 0;    ///< dense TF32 tensor-core peak, 0: none (before Ampere)
  double tensor_fp8_tflops = 0;     ///< dense FP8 tensor-core peak (FP32 accumulate), 0: none
  double tensor_int8_tops = 0;      ///< dense INT8 tensor-core peak, 1e12 op/s, 0: none
  double memory_bandwidth_gbs = 0;  ///< DRAM bandwidth, GB/s (1e9 bytes/s)
  double memory_gb = 0;
  double l2_cache_mb = 0;
  /// NVLink to the other GPUs of its board (SXM modules on an HGX/DGX baseboard), GB/s per
  /// direction; 0: none assumed, GPUs talk over PCIe (a bridge is optional, not assumed).
  double nvlink_gbs = 0;
  double shared_mem_per_sm_kb = 0;  ///< max configurable shared memory per SM
  int registers_per_sm = 65536;     ///< 32-bit registers
  int max_threads_per_sm = 2048;
  int max_blocks_per_sm = 32;
  double tdp_w = 0;                            ///< board power limit (default), W
  double idle_power_w = 0;                     ///< typical idle board power, W
  std::string clock_assumed = "boost";         ///< which clock the peaks assume
  std::vector<std::string> aliases;            ///< strings the GPU reports itself as
  std::map<std::string, std::string> sources;  ///< field -> source ("default" for the rest)
  /// An entry of the bundled database whose `sources` are read when first asked for
  /// (source_of, to_json): they are most of models/gpus.json and few commands print them.
  /// `sources` then holds only the notes on fields the entry leaves out.
  bool sources_deferred = false;

  /// The source of one field: `sources[field]`, else `sources["default"]`, else "" (a
  /// deferred entry's from the bundled database).
  [[nodiscard]] std::string source_of(const std::string& field) const;
  /// compute_capability as a number (e.g. 8.0); 0 when empty or not a number.
  [[nodiscard]] double compute_capability_number() const;
  /// SM clock cycles per ms at the boost clock, what a cost counted in cycles is divided by.
  /// Every spec read from a file has a boost clock (100-5,000 MHz); a struct built in code
  /// without one takes kReferenceBoostClockMhz.
  [[nodiscard]] double boost_cycles_per_ms() const;
};

/// Field names of GpuSpec in declaration order (the JSON keys of one database entry).
[[nodiscard]] const std::vector<std::string>& gpu_spec_field_names();

/// Serializes every field (same keys as the database file); found by nlohmann::json via ADL.
void to_json(nlohmann::json& out, const GpuSpec& spec);
/// The inverse of to_json, for a result cnnperf wrote: a member the JSON lacks keeps its
/// default, a member of the wrong type throws nlohmann::json::type_error. It checks no value
/// and fills nothing in: a spec a user gives goes through gpu_spec_from_json.
void from_json(const nlohmann::json& j, GpuSpec& spec);

/// The "kind" and schema version of `gpus show`'s JSON result.
inline constexpr const char* kGpuSpecKind = "gpu_spec";
inline constexpr int kGpuSpecResultSchemaVersion = 1;

/// `gpus show`'s JSON result: one GPU's entry and what found it.
struct GpuSpecResult {
  int schema_version = kGpuSpecResultSchemaVersion;
  std::string tool_version;
  std::string database;  ///< the database file the entry is from
  std::string query;     ///< the name or alias asked for
  GpuSpec gpu;
};

void to_json(nlohmann::json& j, const GpuSpecResult& result);
/// Members absent from `j` keep their defaults (files of older versions).
void from_json(const nlohmann::json& j, GpuSpecResult& result);

/// Parses one GPU object. `where` prefixes error messages (e.g. "gpus.json: gpus[12]").
/// With `require_all`, every numeric/string field must be present (database entries);
/// otherwise only the fields a custom spec cannot do without (name, architecture, sm_count,
/// fp32_cores_per_sm, boost_clock_mhz, memory_bandwidth_gbs, tdp_w), fp32_tflops being
/// derived from the clock when absent. Unknown keys are errors (they are usually typos).
/// Throws InputError "where.field: expected ...".
[[nodiscard]] GpuSpec gpu_spec_from_json(const nlohmann::json& object, const std::string& where,
                                         bool require_all);

/// Loads a JSON file holding one GPU object (a custom spec, GpuDatabase::resolve's file).
[[nodiscard]] GpuSpec load_gpu_spec_file(const std::string& path);

/// A loaded database.
class GpuDatabase {
 public:
  /// Loads a database JSON file (schema in docs/gpus.md). Throws InputError naming the file and
  /// field, e.g. "gpus.json: gpus[12].sm_count: expected a positive integer".
  static GpuDatabase load(const std::string& path);
  /// load() for a reader that uses few entries: the file's syntax, top level, names, families
  /// and aliases are checked now, each entry's other fields when it is first used (find,
  /// all, board_of_same_chip), throwing the InputError load() would; its sources when they
  /// are asked for (GpuSpec::sources_deferred, sources_of).
  static GpuDatabase load_deferred(const std::string& path);
  /// The bundled database (models/gpus.json), loaded once with load_deferred.
  static const GpuDatabase& bundled();
  GpuDatabase();
  ~GpuDatabase();
  GpuDatabase(GpuDatabase&&) noexcept;
  GpuDatabase& operator=(GpuDatabase&&) noexcept;
  /// Every source of the entry named `name`, as load() reads them (the notes on fields it
  /// leaves out included); a deferred entry's are parsed from the file once, then kept.
  /// Throws InputError for a name the database does not hold.
  [[nodiscard]] std::map<std::string, std::string> sources_of(const std::string& name) const;

  /// Every entry, in file order (the bundled database builds each one on first use).
  [[nodiscard]] const std::vector<GpuSpec>& all() const;
  /// Resolves a name or alias (case-insensitive, vendor words and punctuation ignored) or a
  /// family name (to its default variant). nullopt when nothing matches.
  [[nodiscard]] std::optional<GpuSpec> find(std::string_view name) const;
  /// Of the entries named in `among` (database names), another board of `gpu`'s chip: the
  /// same non-empty `family`, architecture and SM count (an A100-SXM4 for an A100-PCIe), the
  /// closest in boost clock, memory bandwidth and TDP (ties: the earlier entry). Such boards
  /// run a shape with the same kernels and the same wave steps. Null when none, or when `gpu`
  /// itself is named in `among`. Points into this database.
  [[nodiscard]] const GpuSpec* board_of_same_chip(const GpuSpec& gpu,
                                                  const std::vector<std::string>& among) const;
  /// Up to `count` database names closest to `name` (edit distance on normalized names).
  [[nodiscard]] std::vector<std::string> closest(std::string_view name, int count = 3) const;
  /// find(), or a path to a JSON spec file; throws InputError with the closest names, and
  /// ParameterError naming `parameter` for blank text.
  [[nodiscard]] GpuSpec resolve(std::string_view name_or_file,
                                std::string_view parameter = "gpu") const;

  /// Path the database was loaded from.
  [[nodiscard]] const std::string& source_path() const { return source_path_; }
  /// schema_version of the loaded file.
  [[nodiscard]] int schema_version() const { return schema_version_; }
  /// family -> default entry name, as in the file.
  [[nodiscard]] const std::map<std::string, std::string>& family_defaults() const {
    return family_defaults_;
  }

 private:
  /// Every entry; with lazy_, only what the index and closest() read (Lazy builds the rest).
  std::vector<GpuSpec> gpus_;
  std::map<std::string, std::string> family_defaults_;  ///< family -> default entry name
  std::string source_path_;
  int schema_version_ = 0;
  // Lookup keys -> index into gpus_. Exact keys keep vendor words (so "NVIDIA Tesla V100" and
  // "Tesla V100" can name different entries); loose keys drop them (normalize_gpu_name).
  std::map<std::string, std::size_t> exact_keys_;
  std::map<std::string, std::size_t> loose_keys_;
  /// The bundled database's parsed file and the entries built from it on first use; gpus_
  /// then holds only each entry's name, display name, family and aliases. Null when load()
  /// built every entry.
  struct Lazy;
  std::unique_ptr<Lazy> lazy_;
  /// Entry `index`, built if it was not yet.
  const GpuSpec& entry(std::size_t index) const;
  void build_index();
  static GpuDatabase from_text(const std::string& path, std::string text, bool lazy);
};

/// Lowercases and drops every character but [a-z0-9] (vendor words kept).
[[nodiscard]] std::string exact_gpu_key(std::string_view name);

/// Normalizes a GPU name for matching: lowercase, vendor words (nvidia, geforce, tesla,
/// quadro, corporation) and punctuation removed. "Quadro RTX 6000" -> "rtx6000" stays
/// distinct from "RTX 6000 Ada Generation" -> "rtx6000adageneration".
[[nodiscard]] std::string normalize_gpu_name(std::string_view name);

}  // namespace cnnperf
