// SPDX-License-Identifier: Apache-2.0
// GPU database: loading and validating models/gpus.json, name matching, custom spec files.
#include <algorithm>
#include <array>
#include <atomic>
#include <cctype>
#include <cmath>
#include <exception>
#include <filesystem>
#include <limits>
#include <memory>
#include <mutex>
#include <optional>
#include <set>
#include <string>
#include <utility>

#include <nlohmann/json.hpp>

#include "cnnperf/common/error.hpp"
#include "cnnperf/common/io.hpp"
#include "cnnperf/common/json_get.hpp"
#include "cnnperf/common/json_io.hpp"
#include "cnnperf/model/gpu_spec.hpp"

namespace cnnperf {
namespace {

using nlohmann::json;

constexpr int kSchemaVersion = 1;
constexpr std::array<std::string_view, 5> kVendorWords = {"nvidia", "geforce", "tesla", "quadro",
                                                          "corporation"};
const std::set<std::string> kArchitectures = {"kepler", "maxwell", "pascal", "volta",    "turing",
                                              "ampere", "ada",     "hopper", "blackwell"};
const std::set<std::string> kSegments = {"datacenter", "desktop", "workstation", "jetson"};

// Per-SM limits by compute capability (CUDA C++ Programming Guide, "Technical Specifications
// per Compute Capability"), used only to fill the gaps of a custom spec file.
struct SmLimits {
  double shared_kb;
  int registers;
  int threads;
  int blocks;
};
const std::map<std::string, SmLimits>& sm_limits_by_cc() {
  static const std::map<std::string, SmLimits> table = {
      {"3.5", {48, 65536, 2048, 16}},   {"3.7", {112, 131072, 2048, 16}},
      {"5.0", {64, 65536, 2048, 32}},   {"5.2", {96, 65536, 2048, 32}},
      {"5.3", {64, 65536, 2048, 32}},   {"6.0", {64, 65536, 2048, 32}},
      {"6.1", {96, 65536, 2048, 32}},   {"6.2", {64, 65536, 2048, 32}},
      {"7.0", {96, 65536, 2048, 32}},   {"7.2", {96, 65536, 2048, 32}},
      {"7.5", {64, 65536, 1024, 16}},   {"8.0", {164, 65536, 2048, 32}},
      {"8.6", {100, 65536, 1536, 16}},  {"8.7", {164, 65536, 2048, 16}},
      {"8.9", {100, 65536, 1536, 24}},  {"9.0", {228, 65536, 2048, 32}},
      {"10.0", {228, 65536, 2048, 32}}, {"12.0", {100, 65536, 1536, 32}},
  };
  return table;
}

std::string describe(const json& value) {
  std::string text = value.dump();
  if (text.size() > 40) text = text.substr(0, 37) + "...";
  return text;
}

[[noreturn]] void fail(const std::string& where, const std::string& field,
                       const std::string& expected, const json* got = nullptr) {
  std::string message = where + "." + field + ": expected " + expected;
  if (got != nullptr) message += ", got " + describe(*got);
  throw InputError(message);
}

// An entry's "sources" object into `out` (field -> text), each key a GpuSpec field or
// "default".
void read_sources(const json& sources, const std::string& where,
                  std::map<std::string, std::string>& out) {
  if (!sources.is_object()) fail(where, "sources", "an object of field -> source text", &sources);
  const auto& known = gpu_spec_field_names();
  for (const auto& [field, text] : sources.items()) {
    if (!text.is_string()) fail(where, "sources." + field, "a string", &text);
    if (field != "default" && std::find(known.begin(), known.end(), field) == known.end()) {
      fail(where, "sources." + field, "a GpuSpec field name or \"default\"");
    }
    out[field] = text.get<std::string>();
  }
}

// Reads fields of one GPU object, tracking which were present.
class FieldReader {
 public:
  FieldReader(const json& object, std::string where, bool require_all)
      : object_(object), where_(std::move(where)), require_all_(require_all) {}

  const json* get(const std::string& field, bool required) {
    const auto it = object_.find(field);
    if (it == object_.end() || it->is_null()) {
      if (required || (require_all_ && !is_optional(field))) {
        fail(where_, field, "a value (field is missing)");
      }
      return nullptr;
    }
    return &*it;
  }

  // Fields only some GPUs have, absent even in the bundled database for the others.
  static bool is_optional(const std::string& field) { return field == "nvlink_gbs"; }

  bool text(const std::string& field, std::string& out, bool required) {
    const json* v = get(field, required);
    if (v == nullptr) return false;
    if (!v->is_string() || v->get<std::string>().empty()) {
      fail(where_, field, "a non-empty string", v);
    }
    out = v->get<std::string>();
    return true;
  }

  bool positive_int(const std::string& field, int& out, bool required) {
    const json* v = get(field, required);
    if (v == nullptr) return false;
    if (!v->is_number()) fail(where_, field, "a positive integer", v);
    const double d = v->get<double>();
    if (!(d >= 1) || d != std::floor(d) || d > 1e9) fail(where_, field, "a positive integer", v);
    out = static_cast<int>(d);
    return true;
  }

  bool number(const std::string& field, double& out, bool required, bool allow_zero) {
    const json* v = get(field, required);
    if (v == nullptr) return false;
    const char* expected = allow_zero ? "a number >= 0" : "a positive number";
    if (!v->is_number()) fail(where_, field, expected, v);
    const double d = v->get<double>();
    if (!std::isfinite(d) || d < 0 || (!allow_zero && d == 0)) fail(where_, field, expected, v);
    out = d;
    return true;
  }

  const std::string& where() const { return where_; }

 private:
  const json& object_;
  std::string where_;
  bool require_all_;
};

bool looks_like_file(std::string_view text) {
  const std::string lower = to_lower(text);
  return (lower.size() > 5 && lower.ends_with(".json")) || text.find('/') != std::string_view::npos;
}

}  // namespace

// ---------------------------------------------------------------------------------------------
// GpuSpec helpers

double GpuSpec::boost_cycles_per_ms() const {
  return (boost_clock_mhz > 0 ? boost_clock_mhz : kReferenceBoostClockMhz) * 1e3;
}

double GpuSpec::compute_capability_number() const {
  if (compute_capability.empty()) return 0;
  try {
    return std::stod(compute_capability);
  } catch (const std::exception&) {
    return 0;
  }
}

std::string GpuSpec::source_of(const std::string& field) const {
  const std::map<std::string, std::string> deferred = sources_deferred
                                                          ? GpuDatabase::bundled().sources_of(name)
                                                          : std::map<std::string, std::string>();
  const auto& all = sources_deferred ? deferred : sources;
  if (const auto it = all.find(field); it != all.end()) return it->second;
  if (const auto it = all.find("default"); it != all.end()) return it->second;
  return {};
}

const std::vector<std::string>& gpu_spec_field_names() {
  static const std::vector<std::string> names = {"name",
                                                 "display_name",
                                                 "family",
                                                 "architecture",
                                                 "segment",
                                                 "compute_capability",
                                                 "release_year",
                                                 "sm_count",
                                                 "fp32_cores_per_sm",
                                                 "base_clock_mhz",
                                                 "boost_clock_mhz",
                                                 "fp32_tflops",
                                                 "fp16_tflops",
                                                 "tensor_fp16_tflops",
                                                 "tensor_bf16_tflops",
                                                 "tensor_tf32_tflops",
                                                 "tensor_fp8_tflops",
                                                 "tensor_int8_tops",
                                                 "memory_bandwidth_gbs",
                                                 "memory_gb",
                                                 "l2_cache_mb",
                                                 "nvlink_gbs",
                                                 "shared_mem_per_sm_kb",
                                                 "registers_per_sm",
                                                 "max_threads_per_sm",
                                                 "max_blocks_per_sm",
                                                 "tdp_w",
                                                 "idle_power_w",
                                                 "clock_assumed",
                                                 "aliases",
                                                 "sources"};
  return names;
}

namespace {

// Every member of GpuSpec under its JSON key, for both directions (Spec: const or not).
template <typename Spec, typename F>
void gpu_spec_members(Spec& g, F&& f) {
  f("name", g.name);
  f("display_name", g.display_name);
  f("family", g.family);
  f("architecture", g.architecture);
  f("segment", g.segment);
  f("compute_capability", g.compute_capability);
  f("release_year", g.release_year);
  f("sm_count", g.sm_count);
  f("fp32_cores_per_sm", g.fp32_cores_per_sm);
  f("base_clock_mhz", g.base_clock_mhz);
  f("boost_clock_mhz", g.boost_clock_mhz);
  f("fp32_tflops", g.fp32_tflops);
  f("fp16_tflops", g.fp16_tflops);
  f("tensor_fp16_tflops", g.tensor_fp16_tflops);
  f("tensor_bf16_tflops", g.tensor_bf16_tflops);
  f("tensor_tf32_tflops", g.tensor_tf32_tflops);
  f("tensor_fp8_tflops", g.tensor_fp8_tflops);
  f("tensor_int8_tops", g.tensor_int8_tops);
  f("memory_bandwidth_gbs", g.memory_bandwidth_gbs);
  f("memory_gb", g.memory_gb);
  f("l2_cache_mb", g.l2_cache_mb);
  f("nvlink_gbs", g.nvlink_gbs);
  f("shared_mem_per_sm_kb", g.shared_mem_per_sm_kb);
  f("registers_per_sm", g.registers_per_sm);
  f("max_threads_per_sm", g.max_threads_per_sm);
  f("max_blocks_per_sm", g.max_blocks_per_sm);
  f("tdp_w", g.tdp_w);
  f("idle_power_w", g.idle_power_w);
  f("clock_assumed", g.clock_assumed);
  f("aliases", g.aliases);
  f("sources", g.sources);
}

}  // namespace

void to_json(nlohmann::json& out, const GpuSpec& g) {
  out = json::object();
  gpu_spec_members(g, [&](const char* key, const auto& value) { out[key] = value; });
  if (g.sources_deferred) out["sources"] = GpuDatabase::bundled().sources_of(g.name);
}

void from_json(const nlohmann::json& j, GpuSpec& g) {
  json_require_object(j);
  gpu_spec_members(g, [&](const char* key, auto& value) { json_get_member_exact(j, key, value); });
}

void to_json(nlohmann::json& j, const GpuSpecResult& r) {
  j = {{"schema_version", r.schema_version},
       {"kind", kGpuSpecKind},
       {"tool_version", r.tool_version},
       {"database", r.database},
       {"query", r.query},
       {"gpu", r.gpu}};
}

void from_json(const nlohmann::json& j, GpuSpecResult& r) {
  json_require_object(j);
  for (const auto& [key, member] :
       {std::pair{"tool_version", &r.tool_version}, std::pair{"database", &r.database},
        std::pair{"query", &r.query}}) {
    json_get_member_exact(j, key, *member);
  }
  json_get_member_exact(j, "schema_version", r.schema_version);
  json_get_member_exact(j, "gpu", r.gpu);
}

GpuSpec gpu_spec_from_json(const nlohmann::json& object, const std::string& where,
                           bool require_all) {
  if (!object.is_object()) {
    throw InputError(where + ": expected a JSON object describing one GPU, got " +
                     describe(object));
  }
  const auto& known = gpu_spec_field_names();
  for (const auto& [key, value] : object.items()) {
    if (std::find(known.begin(), known.end(), key) == known.end()) {
      throw InputError(where + "." + key + ": unknown field (expected one of the GpuSpec fields " +
                       "listed in docs/gpus.md)");
    }
  }
  FieldReader r(object, where, require_all);
  GpuSpec g;
  std::map<std::string, std::string> defaulted;  // field -> how it was filled in

  r.text("name", g.name, true);
  if (!r.text("display_name", g.display_name, false)) {
    g.display_name = g.name;
    defaulted["display_name"] = "not given: the name";
  }
  if (!r.text("family", g.family, false)) {
    g.family = g.name;
    defaulted["family"] = "not given: the name";
  }
  r.text("architecture", g.architecture, true);
  g.architecture = to_lower(g.architecture);
  if (kArchitectures.count(g.architecture) == 0) {
    const json got = g.architecture;
    fail(where, "architecture",
         "one of kepler|maxwell|pascal|volta|turing|ampere|ada|hopper|blackwell", &got);
  }
  if (r.text("segment", g.segment, false)) {
    if (kSegments.count(g.segment) == 0) {
      const json got = g.segment;
      fail(where, "segment", "one of datacenter|desktop|workstation|jetson", &got);
    }
  } else {
    g.segment = "custom";
    defaulted["segment"] = "not given: custom";
  }
  if (r.text("compute_capability", g.compute_capability, false)) {
    const auto& cc = g.compute_capability;
    const auto dot = cc.find('.');
    const bool ok = dot != std::string::npos && dot > 0 && dot + 1 < cc.size() &&
                    std::all_of(cc.begin(), cc.end(),
                                [](unsigned char c) { return std::isdigit(c) || c == '.'; }) &&
                    std::count(cc.begin(), cc.end(), '.') == 1;
    if (!ok) {
      const json got = cc;
      fail(where, "compute_capability", "a string like \"8.0\"", &got);
    }
  }
  if (!r.positive_int("release_year", g.release_year, false)) {
    g.release_year = 0;
    defaulted["release_year"] = "not given";
  }
  r.positive_int("sm_count", g.sm_count, true);
  r.positive_int("fp32_cores_per_sm", g.fp32_cores_per_sm, true);
  if (!r.number("base_clock_mhz", g.base_clock_mhz, false, true)) {
    g.base_clock_mhz = 0;
    defaulted["base_clock_mhz"] = "not given";
  }
  r.number("boost_clock_mhz", g.boost_clock_mhz, true, false);
  if (!r.number("fp32_tflops", g.fp32_tflops, false, false)) {
    g.fp32_tflops = 2.0 * g.sm_count * g.fp32_cores_per_sm * g.boost_clock_mhz / 1e6;
    defaulted["fp32_tflops"] = "derived: 2 x sm_count x fp32_cores_per_sm x boost_clock_mhz";
  }
  if (!r.number("fp16_tflops", g.fp16_tflops, false, true)) {
    defaulted["fp16_tflops"] = "not given: 0 (no native FP16 rate known)";
  }
  if (!r.number("tensor_fp16_tflops", g.tensor_fp16_tflops, false, true)) {
    defaulted["tensor_fp16_tflops"] = "not given: 0 (no tensor cores assumed)";
  }
  if (!r.number("tensor_bf16_tflops", g.tensor_bf16_tflops, false, true)) {
    defaulted["tensor_bf16_tflops"] = "not given: 0 (no BF16 tensor rate known)";
  }
  if (!r.number("tensor_int8_tops", g.tensor_int8_tops, false, true)) {
    defaulted["tensor_int8_tops"] = "not given: 0 (no INT8 tensor rate known)";
  }
  if (!r.number("tensor_tf32_tflops", g.tensor_tf32_tflops, false, true)) {
    // Every architecture with TF32 (compute capability 8.0 on) runs it at half its dense FP16
    // tensor rate.
    const bool has_tf32 = g.tensor_fp16_tflops > 0 && g.compute_capability_number() >= 8.0;
    g.tensor_tf32_tflops = has_tf32 ? g.tensor_fp16_tflops / 2 : 0;
    defaulted["tensor_tf32_tflops"] =
        has_tf32 ? "derived: tensor_fp16_tflops / 2 (compute capability 8.0 or newer)"
                 : "not given: 0 (no FP16 tensor rate given, or compute capability before 8.0)";
  }
  if (!r.number("tensor_fp8_tflops", g.tensor_fp8_tflops, false, true)) {
    defaulted["tensor_fp8_tflops"] = "not given: 0 (no FP8 tensor rate known)";
  }
  r.number("memory_bandwidth_gbs", g.memory_bandwidth_gbs, true, false);
  if (!r.number("memory_gb", g.memory_gb, false, false)) defaulted["memory_gb"] = "not given";
  if (!r.number("l2_cache_mb", g.l2_cache_mb, false, false)) defaulted["l2_cache_mb"] = "not given";
  if (!r.number("nvlink_gbs", g.nvlink_gbs, false, true)) {
    defaulted["nvlink_gbs"] = "not given: 0 (GPUs of the board talk over PCIe)";
  }

  // Per-SM limits: from the compute-capability table when not given.
  const auto& limits_table = sm_limits_by_cc();
  const auto limits = limits_table.find(g.compute_capability);
  const bool have_limits = limits != limits_table.end();
  const std::string limits_note =
      have_limits ? "not given: CUDA C++ Programming Guide value for compute capability " +
                        g.compute_capability
                  : "not given: GpuSpec default";
  if (!r.number("shared_mem_per_sm_kb", g.shared_mem_per_sm_kb, false, false)) {
    g.shared_mem_per_sm_kb = have_limits ? limits->second.shared_kb : 48;
    defaulted["shared_mem_per_sm_kb"] = limits_note;
  }
  if (!r.positive_int("registers_per_sm", g.registers_per_sm, false)) {
    if (have_limits) g.registers_per_sm = limits->second.registers;
    defaulted["registers_per_sm"] = limits_note;
  }
  if (!r.positive_int("max_threads_per_sm", g.max_threads_per_sm, false)) {
    if (have_limits) g.max_threads_per_sm = limits->second.threads;
    defaulted["max_threads_per_sm"] = limits_note;
  }
  if (!r.positive_int("max_blocks_per_sm", g.max_blocks_per_sm, false)) {
    if (have_limits) g.max_blocks_per_sm = limits->second.blocks;
    defaulted["max_blocks_per_sm"] = limits_note;
  }
  r.number("tdp_w", g.tdp_w, true, false);
  if (!r.number("idle_power_w", g.idle_power_w, false, true)) {
    g.idle_power_w = 0.1 * g.tdp_w;
    defaulted["idle_power_w"] = "not given: estimated as 10% of tdp_w";
  }
  if (!r.text("clock_assumed", g.clock_assumed, false)) {
    g.clock_assumed = "boost";
    defaulted["clock_assumed"] = "not given: boost";
  }

  // Ranges no GPU of the last 15 years or the next 15 leaves: a value outside is a typo or a
  // unit mistake (GB/s given in TB/s, MHz in GHz), which would give absurd predictions.
  struct Plausible {
    const char* field;
    double value, low, high;
  };
  for (const Plausible& p : {Plausible{"sm_count", double(g.sm_count), 1, 1024},
                             {"fp32_cores_per_sm", double(g.fp32_cores_per_sm), 8, 1024},
                             {"boost_clock_mhz", g.boost_clock_mhz, 100, 5000},
                             {"fp32_tflops", g.fp32_tflops, 0.01, 5000},
                             {"fp16_tflops", g.fp16_tflops, 0, 20000},
                             {"tensor_fp16_tflops", g.tensor_fp16_tflops, 0, 100000},
                             {"tensor_bf16_tflops", g.tensor_bf16_tflops, 0, 100000},
                             {"tensor_tf32_tflops", g.tensor_tf32_tflops, 0, 100000},
                             {"tensor_fp8_tflops", g.tensor_fp8_tflops, 0, 200000},
                             {"tensor_int8_tops", g.tensor_int8_tops, 0, 200000},
                             {"memory_bandwidth_gbs", g.memory_bandwidth_gbs, 1, 100000},
                             {"memory_gb", g.memory_gb, 0, 10000},
                             {"l2_cache_mb", g.l2_cache_mb, 0, 4096},
                             {"shared_mem_per_sm_kb", g.shared_mem_per_sm_kb, 1, 4096},
                             {"tdp_w", g.tdp_w, 1, 5000}}) {
    if (!(p.value >= p.low && p.value <= p.high)) {
      const json got = p.value;
      fail(where, p.field,
           "a value in " + format_number(p.low) + ".." + format_number(p.high) +
               " (a plausible figure for a GPU; check the unit)",
           &got);
    }
  }
  if (!g.compute_capability.empty() && std::stoi(g.compute_capability) > 20) {
    const json got = g.compute_capability;
    fail(where, "compute_capability", "a major version of at most 20", &got);
  }
  if (g.base_clock_mhz > g.boost_clock_mhz) {
    const json got = g.base_clock_mhz;
    fail(where, "base_clock_mhz",
         "at most boost_clock_mhz (" + format_number(g.boost_clock_mhz) + ")", &got);
  }
  if (g.idle_power_w >= g.tdp_w) {
    const json got = g.idle_power_w;
    fail(where, "idle_power_w", "less than tdp_w (" + format_number(g.tdp_w) + ")", &got);
  }

  if (const json* aliases = r.get("aliases", false); aliases != nullptr) {
    if (!aliases->is_array()) fail(where, "aliases", "an array of strings", aliases);
    for (std::size_t i = 0; i < aliases->size(); ++i) {
      const json& a = (*aliases)[i];
      if (!a.is_string() || a.get<std::string>().empty() ||
          exact_gpu_key(a.get<std::string>()).empty()) {
        fail(where, "aliases[" + std::to_string(i) + "]", "a non-empty name", &a);
      }
      g.aliases.push_back(a.get<std::string>());
    }
  } else {
    defaulted["aliases"] = "not given";
  }
  if (const json* sources = r.get("sources", false); sources != nullptr) {
    read_sources(*sources, where, g.sources);
  }
  for (const auto& [field, note] : defaulted) {
    if (g.sources.count(field) == 0) g.sources[field] = note;
  }
  return g;
}

GpuSpec load_gpu_spec_file(const std::string& path) {
  const json doc = read_json_file(path);
  if (doc.is_object() && doc.contains("gpus")) {
    throw InputError(path +
                     ": expected one GPU object, found a database file ('gpus' array); "
                     "pass one entry of it, or a name");
  }
  GpuSpec g = gpu_spec_from_json(doc, path, false);
  if (g.sources.count("default") == 0) g.sources["default"] = "user spec file " + path;
  return g;
}

// ---------------------------------------------------------------------------------------------
// Name matching

std::string exact_gpu_key(std::string_view name) {
  std::string out;
  out.reserve(name.size());
  for (const unsigned char c : name) {
    if (std::isalnum(c)) out.push_back(static_cast<char>(std::tolower(c)));
  }
  return out;
}

std::string normalize_gpu_name(std::string_view name) {
  // Token-wise: "NVIDIA GeForce RTX 3090" -> {rtx, 3090}; vendor tokens dropped.
  std::string out;
  std::string token;
  auto flush = [&] {
    if (token.empty()) return;
    if (std::find(kVendorWords.begin(), kVendorWords.end(), token) == kVendorWords.end()) {
      out += token;
    }
    token.clear();
  };
  for (const unsigned char c : name) {
    if (std::isalnum(c)) {
      token.push_back(static_cast<char>(std::tolower(c)));
    } else {
      flush();
    }
  }
  flush();
  // Names written without separators ("GeForceRTX3090"): strip leading vendor words too.
  for (bool stripped = true; stripped;) {
    stripped = false;
    for (const auto word : kVendorWords) {
      if (out.size() > word.size() && out.starts_with(word)) {
        out.erase(0, word.size());
        stripped = true;
      }
    }
  }
  return out;
}

void GpuDatabase::build_index() {
  exact_keys_.clear();
  loose_keys_.clear();
  std::map<std::string, std::size_t> by_name;
  for (std::size_t i = 0; i < gpus_.size(); ++i) by_name[gpus_[i].name] = i;

  // Family names resolve to their default variant; they take priority among loose keys.
  std::map<std::string, std::vector<std::size_t>> members;
  for (std::size_t i = 0; i < gpus_.size(); ++i) members[gpus_[i].family].push_back(i);
  for (const auto& [family, indices] : members) {
    std::size_t target = indices.front();
    if (const auto it = family_defaults_.find(family); it != family_defaults_.end()) {
      target = by_name.at(it->second);  // validated by load()
    } else if (indices.size() > 1) {
      throw InputError(source_path_ + ": family_defaults: family '" + family + "' has " +
                       std::to_string(indices.size()) + " entries but no default variant");
    }
    const std::string key = normalize_gpu_name(family);
    if (!key.empty()) loose_keys_.emplace(key, target);
  }

  for (std::size_t i = 0; i < gpus_.size(); ++i) {
    const GpuSpec& g = gpus_[i];
    std::vector<std::string> names = {g.name, g.display_name};
    names.insert(names.end(), g.aliases.begin(), g.aliases.end());
    for (const auto& n : names) {
      const std::string key = exact_gpu_key(n);
      if (key.empty()) continue;
      const auto [it, inserted] = exact_keys_.emplace(key, i);
      if (!inserted && it->second != i) {
        throw InputError(source_path_ + ": gpus[" + std::to_string(i) + "] '" + g.name +
                         "': name or alias '" + n + "' is already used by '" +
                         gpus_[it->second].name + "'");
      }
      // First writer wins among loose keys (families, then file order); the exact keys above
      // already separate any names that collide only after vendor words are dropped.
      const std::string loose = normalize_gpu_name(n);
      if (!loose.empty()) loose_keys_.emplace(loose, i);
    }
  }
}

struct GpuDatabase::Lazy {
  explicit Lazy(ParsedJsonText parsed_text, std::size_t count)
      : parsed(std::move(parsed_text)), entries(count), built(count, 0) {}
  ParsedJsonText parsed;
  std::mutex mutex;
  // Built entries live here, not in gpus_, so that what the index and closest() read there
  // is never written after the load while another thread reads it.
  std::vector<GpuSpec> entries;
  std::vector<char> built;  ///< entry index -> built yet
  std::atomic<bool> all_built{false};
  std::map<std::size_t, std::map<std::string, std::string>> sources;  ///< read so far
};

GpuDatabase::GpuDatabase() = default;
GpuDatabase::~GpuDatabase() = default;
GpuDatabase::GpuDatabase(GpuDatabase&&) noexcept = default;
GpuDatabase& GpuDatabase::operator=(GpuDatabase&&) noexcept = default;

GpuDatabase GpuDatabase::load(const std::string& path) {
  return from_text(path, read_text_file(path), false);
}

namespace {

// An entry of the bundled database, built from its JSON: its sources are read by sources_of,
// and the entry needs the member.
GpuSpec build_deferred_entry(json object, const std::string& where) {
  if (object.is_object()) object["sources"] = json::object();
  GpuSpec g = gpu_spec_from_json(object, where, true);
  g.sources_deferred = true;
  return g;
}

}  // namespace

GpuDatabase GpuDatabase::from_text(const std::string& path, std::string text, bool lazy) {
  // Lazily, the top level is built without "gpus", and each entry (its "sources" left for
  // sources_of) when it is first used; what the index needs is read now.
  std::optional<ParsedJsonText> parsed;
  json doc;
  if (lazy) {
    parsed.emplace(std::move(text), path);
    doc = parsed->find("", "gpus", 0).value_or(json());
  } else {
    doc = parse_json_text(text, path);
  }
  if (!doc.is_object()) throw InputError(path + ": expected a JSON object at the top level");
  for (const auto& [key, value] : doc.items()) {
    if (key != "schema_version" && key != "description" && key != "family_defaults" &&
        key != "gpus") {
      throw InputError(path + ": " + key +
                       ": unknown top-level key (expected schema_version, description, "
                       "family_defaults, gpus)");
    }
  }
  GpuDatabase db;
  db.source_path_ = path;
  const auto version = doc.find("schema_version");
  if (version == doc.end() || !version->is_number_integer()) {
    throw InputError(path + ": schema_version: expected the integer " +
                     std::to_string(kSchemaVersion));
  }
  db.schema_version_ = version->get<int>();
  if (db.schema_version_ != kSchemaVersion) {
    throw InputError(path + ": schema_version: expected " + std::to_string(kSchemaVersion) +
                     ", got " + std::to_string(db.schema_version_));
  }
  const std::string gpus_expected = path + ": gpus: expected a non-empty array of GPU objects";
  std::set<std::string> names;
  const auto add = [&](GpuSpec g, const std::string& where) {
    if (!names.insert(g.name).second) {
      throw InputError(where + ".name: expected a unique name, '" + g.name + "' appears twice");
    }
    db.gpus_.push_back(std::move(g));
  };
  if (lazy) {
    const std::size_t count = parsed->array_size("/gpus").value_or(0);
    if (count == 0) throw InputError(gpus_expected);
    for (std::size_t i = 0; i < count; ++i) {
      const std::string where = path + ": gpus[" + std::to_string(i) + "]";
      const std::string pointer = "/gpus/" + std::to_string(i);
      // What the index reads; an entry whose members are not all plain is built now, so
      // that its error is the one a full load gives.
      GpuSpec light;
      bool plain = true;
      const auto text_member = [&](const char* key, std::string& out) {
        const auto value = parsed->find(pointer + "/" + key);
        if (value && value->is_string() && !value->get_ref<const std::string&>().empty()) {
          out = value->get<std::string>();
        } else {
          plain = false;
        }
      };
      text_member("name", light.name);
      text_member("display_name", light.display_name);
      text_member("family", light.family);
      const auto aliases = parsed->find(pointer + "/aliases");
      if (aliases && aliases->is_array()) {
        for (const auto& a : *aliases) {
          if (!a.is_string()) plain = false;
          if (plain) light.aliases.push_back(a.get<std::string>());
        }
      } else {
        plain = false;
      }
      if (!plain) light = build_deferred_entry(parsed->find(pointer).value_or(json()), where);
      light.sources_deferred = true;
      add(std::move(light), where);
    }
    db.lazy_ = std::make_unique<Lazy>(std::move(*parsed), count);
  } else {
    const auto gpus = doc.find("gpus");
    if (gpus == doc.end() || !gpus->is_array() || gpus->empty()) throw InputError(gpus_expected);
    for (std::size_t i = 0; i < gpus->size(); ++i) {
      const std::string where = path + ": gpus[" + std::to_string(i) + "]";
      add(gpu_spec_from_json((*gpus)[i], where, true), where);
    }
  }
  if (const auto fd = doc.find("family_defaults"); fd != doc.end()) {
    if (!fd->is_object()) throw InputError(path + ": family_defaults: expected an object");
    for (const auto& [family, target] : fd->items()) {
      if (!target.is_string() || names.count(target.get<std::string>()) == 0) {
        throw InputError(path + ": family_defaults." + family +
                         ": expected the name of a gpus entry, got " + describe(target));
      }
      const auto& t = target.get<std::string>();
      const auto entry = std::find_if(db.gpus_.begin(), db.gpus_.end(),
                                      [&](const GpuSpec& g) { return g.name == t; });
      if (entry->family != family) {
        throw InputError(path + ": family_defaults." + family + ": entry '" + t +
                         "' belongs to family '" + entry->family + "'");
      }
      db.family_defaults_[family] = t;
    }
  }
  db.build_index();
  return db;
}

const GpuSpec& GpuDatabase::entry(std::size_t index) const {
  if (lazy_ == nullptr) return gpus_[index];
  if (lazy_->all_built.load(std::memory_order_acquire)) return lazy_->entries[index];
  const std::lock_guard<std::mutex> lock(lazy_->mutex);
  if (lazy_->built[index] == 0) {
    const std::string i = std::to_string(index);
    lazy_->entries[index] = build_deferred_entry(
        lazy_->parsed.find("/gpus/" + i, "sources", 0).value(), source_path_ + ": gpus[" + i + "]");
    lazy_->built[index] = 1;
  }
  return lazy_->entries[index];
}

const std::vector<GpuSpec>& GpuDatabase::all() const {
  if (lazy_ == nullptr) return gpus_;
  if (!lazy_->all_built.load(std::memory_order_acquire)) {
    for (std::size_t i = 0; i < gpus_.size(); ++i) (void)entry(i);
    lazy_->all_built.store(true, std::memory_order_release);
  }
  return lazy_->entries;
}

GpuDatabase GpuDatabase::load_deferred(const std::string& path) {
  return from_text(path, read_text_file(path), true);
}

const GpuDatabase& GpuDatabase::bundled() {
  static const GpuDatabase db = load_deferred(find_resource("models/gpus.json").string());
  return db;
}

std::map<std::string, std::string> GpuDatabase::sources_of(const std::string& name) const {
  const auto found =
      std::find_if(gpus_.begin(), gpus_.end(), [&](const GpuSpec& g) { return g.name == name; });
  if (found == gpus_.end()) {
    throw InputError(source_path_ + ": no entry named '" + name + "'");
  }
  const auto index = static_cast<std::size_t>(found - gpus_.begin());
  const GpuSpec& spec = entry(index);
  if (!spec.sources_deferred || lazy_ == nullptr) return spec.sources;
  const std::lock_guard<std::mutex> lock(lazy_->mutex);
  if (const auto read = lazy_->sources.find(index); read != lazy_->sources.end()) {
    return read->second;
  }
  std::map<std::string, std::string> all;
  const std::string where = source_path_ + ": gpus[" + std::to_string(index) + "]";
  if (const auto object = lazy_->parsed.find("/gpus/" + std::to_string(index) + "/sources")) {
    read_sources(*object, where, all);
  }
  // The notes on the fields the entry leaves out, as the build wrote them.
  for (const auto& [field, note] : spec.sources) all.emplace(field, note);
  return lazy_->sources[index] = std::move(all);
}

const GpuSpec* GpuDatabase::board_of_same_chip(const GpuSpec& gpu,
                                               const std::vector<std::string>& among) const {
  const auto named = [&](const std::string& name) {
    return std::find(among.begin(), among.end(), name) != among.end();
  };
  if (gpu.family.empty() || named(gpu.name)) return nullptr;
  const auto log_gap = [](double a, double b) {
    return a > 0 && b > 0 ? std::abs(std::log(a / b)) : 0.0;
  };
  const GpuSpec* best = nullptr;
  double best_gap = std::numeric_limits<double>::infinity();
  for (std::size_t i = 0; i < gpus_.size(); ++i) {
    // The family and name first: they are read before an entry is built.
    if (gpus_[i].family != gpu.family || !named(gpus_[i].name)) continue;
    const GpuSpec& entry = this->entry(i);
    if (entry.architecture != gpu.architecture || entry.sm_count != gpu.sm_count) continue;
    const double gap = log_gap(entry.boost_clock_mhz, gpu.boost_clock_mhz) +
                       log_gap(entry.memory_bandwidth_gbs, gpu.memory_bandwidth_gbs) +
                       log_gap(entry.tdp_w, gpu.tdp_w);
    if (gap < best_gap) {
      best = &entry;
      best_gap = gap;
    }
  }
  return best;
}

std::optional<GpuSpec> GpuDatabase::find(std::string_view name) const {
  const std::string exact = exact_gpu_key(name);
  if (exact.empty()) return std::nullopt;
  if (const auto it = exact_keys_.find(exact); it != exact_keys_.end()) return entry(it->second);
  if (const auto it = loose_keys_.find(normalize_gpu_name(name)); it != loose_keys_.end()) {
    return entry(it->second);
  }
  return std::nullopt;
}

std::vector<std::string> GpuDatabase::closest(std::string_view name, int count) const {
  const std::string query = normalize_gpu_name(name);
  std::vector<std::pair<std::size_t, std::size_t>> scored;  // (distance, index)
  // A typed name is often a family or the start of a full name ("a1000" for an A100, "A100
  // PCIe" for a100-pcie-40gb): a candidate's prefix of the query's length counts too.
  const auto distance = [&](std::string_view candidate) {
    const std::string c = normalize_gpu_name(candidate);
    return std::min(edit_distance(query, c),
                    edit_distance(query, std::string_view(c).substr(0, query.size())));
  };
  for (std::size_t i = 0; i < gpus_.size(); ++i) {
    const GpuSpec& g = gpus_[i];
    std::size_t best = std::min(distance(g.name), distance(g.display_name));
    if (!g.family.empty()) best = std::min(best, distance(g.family));
    for (const auto& a : g.aliases) best = std::min(best, distance(a));
    scored.emplace_back(best, i);
  }
  std::stable_sort(scored.begin(), scored.end(),
                   [](const auto& a, const auto& b) { return a.first < b.first; });
  std::vector<std::string> out;
  for (std::size_t k = 0; k < scored.size() && static_cast<int>(k) < count; ++k) {
    out.push_back(gpus_[scored[k].second].name);
  }
  return out;
}

GpuSpec GpuDatabase::resolve(std::string_view name_or_file, std::string_view parameter) const {
  const std::string text(name_or_file);
  if (exact_gpu_key(text).empty()) {
    throw ParameterError(std::string(parameter),
                         "expected a GPU name, alias or JSON spec file, got '" + text + "'");
  }
  if (looks_like_file(text)) {
    std::error_code ec;
    if (!std::filesystem::is_regular_file(text, ec)) {
      throw InputError(text + ": GPU spec file not found");
    }
    return load_gpu_spec_file(text);
  }
  if (auto found = find(text)) return *found;
  std::string message = "unknown GPU '" + text + "'; closest: ";
  const auto near = closest(text, 3);
  for (std::size_t i = 0; i < near.size(); ++i) message += (i ? ", " : "") + near[i];
  message += " (list them with 'cnnperf gpus')";
  throw InputError(message);
}

}  // namespace cnnperf
