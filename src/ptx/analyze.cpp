// SPDX-License-Identifier: Apache-2.0
// One launch of a PTX file: file -> parsed module (cached) -> launch -> executed mix, bytes,
// efficiencies, ptxas resources; printers for table/JSON/CSV.
#include <algorithm>
#include <array>
#include <cctype>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <map>
#include <mutex>
#include <optional>
#include <set>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "cnnperf/common/config.hpp"
#include "cnnperf/common/error.hpp"
#include "cnnperf/common/io.hpp"
#include "cnnperf/common/json_get.hpp"
#include "cnnperf/common/json_io.hpp"
#include "cnnperf/ptx/ptx.hpp"
#include "internal.hpp"

namespace cnnperf {

namespace {

using ptx::InstClass;

struct ModuleEntry {
  std::shared_ptr<ptx::AstModule> module;
  std::map<std::string, std::shared_ptr<const ptx::Program>> programs;
};

std::mutex g_mutex;
std::map<std::string, ModuleEntry> g_modules;                                       // by path
std::map<std::string, PtxLaunchResult> g_results;                                   // by launch key
std::map<std::string, std::optional<std::map<std::string, PtxResources>>> g_ptxas;  // by path+arch

std::shared_ptr<const ptx::Program> load_program(const std::string& file,
                                                 const std::string& kernel) {
  {
    std::lock_guard<std::mutex> lock(g_mutex);
    auto it = g_modules.find(file);
    if (it != g_modules.end()) {
      auto p = it->second.programs.find(kernel);
      if (p != it->second.programs.end()) return p->second;
    }
  }
  std::shared_ptr<ptx::AstModule> mod;
  {
    std::lock_guard<std::mutex> lock(g_mutex);
    auto it = g_modules.find(file);
    if (it != g_modules.end()) mod = it->second.module;
  }
  if (!mod) {
    const std::string text = read_text_file(file);
    mod = std::make_shared<ptx::AstModule>(ptx::parse_module(text, file));
  }
  auto prog = ptx::Program::build(*mod, kernel);
  std::lock_guard<std::mutex> lock(g_mutex);
  auto& e = g_modules[file];
  e.module = mod;
  e.programs[kernel] = prog;
  return prog;
}

std::string find_ptxas() {
  if (const char* env = std::getenv("CNNPERF_PTXAS"); env != nullptr && *env != '\0') return env;
  if (const char* path = std::getenv("PATH"); path != nullptr) {
    std::stringstream ss(path);
    std::string dir;
    while (std::getline(ss, dir, ':')) {
      std::error_code ec;
      if (!dir.empty() && std::filesystem::exists(std::filesystem::path(dir) / "ptxas", ec)) {
        return (std::filesystem::path(dir) / "ptxas").string();
      }
    }
  }
  std::error_code ec;
  if (std::filesystem::exists("/usr/local/cuda/bin/ptxas", ec)) return "/usr/local/cuda/bin/ptxas";
  return {};
}

int grab_int(const std::string& line, const std::string& before_word) {
  // Number right before `before_word`, e.g. "Used 40 registers".
  const auto pos = line.find(before_word);
  if (pos == std::string::npos) return 0;
  std::size_t end = pos;
  while (end > 0 && line[end - 1] == ' ') --end;
  std::size_t start = end;
  while (start > 0 && std::isdigit(static_cast<unsigned char>(line[start - 1]))) --start;
  return start < end ? std::atoi(line.substr(start, end - start).c_str()) : 0;
}

}  // namespace

/// Parses `ptxas -v` output into per-kernel resources (also used for models/ptx/resources.txt).
std::map<std::string, PtxResources> parse_ptxas_output(const std::string& text,
                                                       const std::string& source) {
  std::map<std::string, PtxResources> out;
  std::string current;
  std::stringstream ss(text);
  std::string line;
  while (std::getline(ss, line)) {
    auto q = line.find("Compiling entry function '");
    if (q != std::string::npos) {
      const auto s = q + std::strlen("Compiling entry function '");
      const auto e = line.find('\'', s);
      current = line.substr(s, e - s);
      auto& r = out[current];
      r.source = source;
      const auto f = line.find("for '", e);
      if (f != std::string::npos) r.arch = line.substr(f + 5, line.find('\'', f + 5) - f - 5);
      continue;
    }
    if (current.empty()) continue;
    auto& r = out[current];
    if (line.find("stack frame") != std::string::npos) {
      r.stack_frame_bytes = grab_int(line, "bytes stack frame");
      r.spill_stores_bytes = grab_int(line, "bytes spill stores");
      r.spill_loads_bytes = grab_int(line, "bytes spill loads");
    }
    if (line.find("Used ") != std::string::npos) {
      r.registers = grab_int(line, "registers");
      r.barriers = grab_int(line, "barriers");
      r.shared_bytes = grab_int(line, "bytes smem");
    }
  }
  return out;
}

// ptxas's -arch values: sm_NN or compute_NN, with an optional 'a' or 'f' suffix (sm_90a, sm_100f).
bool valid_ptxas_arch(const std::string& arch) {
  for (const char* prefix : {"sm_", "compute_"}) {
    if (arch.rfind(prefix, 0) != 0) continue;
    const std::size_t first_digit = std::strlen(prefix);
    std::size_t i = first_digit;
    while (i < arch.size() && std::isdigit(static_cast<unsigned char>(arch[i])) != 0) ++i;
    const std::size_t digits = i - first_digit;
    const bool suffix_ok =
        i == arch.size() || (i + 1 == arch.size() && (arch[i] == 'a' || arch[i] == 'f'));
    return digits >= 2 && digits <= 3 && suffix_ok;
  }
  return false;
}

// 'text' for sh: a quote inside it closes, escapes and reopens ('\'').
std::string shell_quote(const std::string& text) {
  std::string out = "'";
  for (const char c : text) out += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return out + "'";
}

std::optional<PtxResources> ptxas_resources(const std::string& file, const std::string& kernel,
                                            const std::string& arch,
                                            std::vector<std::string>& warnings) {
  const std::string key = file + "|" + arch;
  {
    std::lock_guard<std::mutex> lock(g_mutex);
    auto it = g_ptxas.find(key);
    if (it != g_ptxas.end()) {
      if (!it->second) return std::nullopt;
      auto k = it->second->find(kernel);
      if (k == it->second->end()) return std::nullopt;
      return k->second;
    }
  }
  std::optional<std::map<std::string, PtxResources>> table;
  // Reference kernels: resources recorded beside the committed PTX (no ptxas run needed).
  const std::filesystem::path fp(file);
  const auto recorded = fp.parent_path() / "resources.txt";
  std::error_code ec;
  if (fp.parent_path().filename() == "ptx" && std::filesystem::exists(recorded, ec)) {
    const std::string all = read_text_file(recorded);
    std::string mine;
    const std::string prefix = fp.filename().string() + ": ";
    std::stringstream ss(all);
    std::string line;
    while (std::getline(ss, line)) {
      if (line.rfind(prefix, 0) == 0) mine += line.substr(prefix.size()) + "\n";
    }
    if (!mine.empty()) table = parse_ptxas_output(mine, "models/ptx/resources.txt");
    // Recorded for the file's own target: another arch asks ptxas for that one.
    if (table && std::any_of(table->begin(), table->end(),
                             [&](const auto& entry) { return entry.second.arch != arch; })) {
      table.reset();
    }
  }
  if (!table) {
    const std::string ptxas = find_ptxas();
    if (ptxas.empty()) {
      warnings.push_back("ptxas not found: resources not reported");
    } else {
      // arch is checked (valid_ptxas_arch); the paths are quoted for the shell.
      const std::string cmd = shell_quote(ptxas) + " -v -O3 -arch=" + arch + " " +
                              shell_quote(file) + " -o /dev/null 2>&1";
      std::string text;
      if (FILE* pipe = popen(cmd.c_str(), "r"); pipe != nullptr) {
        char buf[4096];
        std::size_t n;
        while ((n = std::fread(buf, 1, sizeof buf, pipe)) > 0) text.append(buf, n);
        const int rc = pclose(pipe);
        if (rc == 0) {
          table = parse_ptxas_output(text, "ptxas -v -arch=" + arch);
        } else {
          warnings.push_back("ptxas failed (" + text.substr(0, text.find('\n')) +
                             "): resources not reported");
        }
      }
    }
  }
  std::lock_guard<std::mutex> lock(g_mutex);
  g_ptxas[key] = table;
  if (!table) return std::nullopt;
  auto k = table->find(kernel);
  if (k == table->end()) return std::nullopt;
  return k->second;
}

namespace {

std::string launch_key(const std::string& file, const std::string& kernel, const ptx::LaunchSpec& s,
                       const std::string& arch) {
  std::ostringstream k;
  k << file << '|' << kernel << '|' << s.grid.x << ',' << s.grid.y << ',' << s.grid.z << '|'
    << s.block.x << ',' << s.block.y << ',' << s.block.z << '|' << s.dynamic_shared_bytes << '|'
    << s.full << '|' << s.samples_per_class << '|' << arch << '|';
  for (const auto& [i, v] : s.params) k << i << '=' << v << ';';
  if (s.extrapolate_param) {
    k << "x" << *s.extrapolate_param << ':' << s.extrapolate_lo << ':' << s.extrapolate_hi;
  }
  return k.str();
}

}  // namespace

PtxLaunchResult analyze_ptx_file(const std::string& file, const std::string& kernel,
                                 const ptx::LaunchSpec& spec, const std::string& arch_in) {
  const auto prog = load_program(file, kernel);
  std::string arch = arch_in;
  if (arch.empty()) {
    std::lock_guard<std::mutex> lock(g_mutex);
    arch = g_modules[file].module->target;
    arch = arch.substr(0, arch.find(','));
  }
  // It reaches ptxas on a command line: a GPU architecture name and nothing else.
  if (!valid_ptxas_arch(arch)) {
    const std::string expected =
        "expected a GPU architecture such as sm_80 or sm_90a, got '" + arch + "'";
    if (!arch_in.empty()) throw ParameterError("arch", expected);
    throw InputError(file + ": .target: " + expected);
  }
  const std::string key = launch_key(file, kernel, spec, arch);
  {
    std::lock_guard<std::mutex> lock(g_mutex);
    auto it = g_results.find(key);
    if (it != g_results.end()) {
      PtxLaunchResult cached = it->second;
      cached.from_cache = true;
      return cached;
    }
  }
  const auto t0 = std::chrono::steady_clock::now();
  const ptx::LaunchCounts c = ptx::run_launch(*prog, spec);
  const auto t1 = std::chrono::steady_clock::now();
  PtxLaunchResult r;
  r.file = file;
  r.kernel = kernel;
  r.grid = spec.grid;
  r.block = spec.block;
  r.ctas_total = static_cast<std::uint64_t>(spec.grid.count());
  r.ctas_simulated = c.ctas_simulated;
  r.sampled = c.extrapolated || c.ctas_simulated < r.ctas_total;
  r.extrapolated = c.extrapolated;
  r.warp_insts_simulated = c.warp_insts_simulated;
  r.analysis_seconds = std::chrono::duration<double>(t1 - t0).count();
  for (int k = 0; k < static_cast<int>(InstClass::kCount); ++k) {
    r.classes_warp[ptx::to_string(static_cast<InstClass>(k))] = 0;
    r.classes_thread[ptx::to_string(static_cast<InstClass>(k))] = 0;
  }
  for (std::size_t pc = 0; pc < prog->code.size(); ++pc) {
    const double w = c.warp[pc], t = c.thread[pc];
    if (w == 0) continue;
    const ptx::Inst& I = prog->code[pc];
    const std::string& name = prog->opcode_names[I.name];
    r.opcodes_warp[name] += w;
    r.opcodes_thread[name] += t;
    const char* cls = ptx::to_string(static_cast<InstClass>(I.cls));
    r.classes_warp[cls] += w;
    r.classes_thread[cls] += t;
    r.warp_insts += w;
    r.thread_insts += t;
    const double bytes = t * I.size * I.nvec;
    switch (static_cast<InstClass>(I.cls)) {
      case InstClass::kLdGlobal: r.global_ld_bytes += bytes; break;
      case InstClass::kStGlobal: r.global_st_bytes += bytes; break;
      case InstClass::kLdShared: r.shared_ld_bytes += bytes; break;
      case InstClass::kStShared: r.shared_st_bytes += bytes; break;
      case InstClass::kLdLocal: r.local_ld_bytes += bytes; break;
      case InstClass::kStLocal: r.local_st_bytes += bytes; break;
      default: break;
    }
  }
  r.global_ld_bytes += c.generic_bytes[0][0];
  r.global_st_bytes += c.generic_bytes[0][1];
  r.shared_ld_bytes += c.generic_bytes[1][0];
  r.shared_st_bytes += c.generic_bytes[1][1];
  r.local_ld_bytes += c.generic_bytes[2][0];
  r.local_st_bytes += c.generic_bytes[2][1];
  r.branches = c.branches;
  r.divergent_branches = c.divergent_branches;
  r.branch_efficiency = c.branches > 0 ? 1.0 - c.divergent_branches / c.branches : 1.0;
  r.active_lane_efficiency = r.warp_insts > 0 ? r.thread_insts / (32.0 * r.warp_insts) : 1.0;
  if (c.data_dependent_branch) {
    r.warnings.push_back(
        "data_dependent_branch: a branch depends on global-memory data (zero-filled here)");
  }
  if (c.data_dependent_address) {
    r.warnings.push_back(
        "data_dependent_address: an address depends on global-memory data (zero-filled here)");
  }
  if (c.shared_out_of_bounds) {
    r.warnings.push_back(
        "shared_out_of_bounds: a shared access fell outside the CTA's shared memory");
  }
  r.resources = ptxas_resources(file, kernel, arch, r.warnings);
  std::lock_guard<std::mutex> lock(g_mutex);
  g_results.emplace(key, r);
  return r;
}

namespace {

using Json = nlohmann::json;

Json dim3_json(const ptx::Dim3& d) {
  return {d.x, d.y, d.z};
}

void take_dim3(const Json& j, const char* key, ptx::Dim3& d) {
  json_require_object(j);
  if (!j.contains(key)) return;
  const Json& xyz = j.at(key);
  if (!xyz.is_array() || xyz.size() != 3) {
    throw Json::type_error::create(302, std::string(key) + ": type must be [x, y, z]", &j);
  }
  json_get_exact(xyz[0], d.x);
  json_get_exact(xyz[1], d.y);
  json_get_exact(xyz[2], d.z);
}

// The members written as they are, under their JSON key, for both directions (Self: const or
// not); grid, block, classes, bytes and resources have a shape of their own.
template <typename Self, typename F>
void plain_members(Self& r, F&& f, PtxResources* /*tag*/) {
  f("arch", r.arch);
  f("registers", r.registers);
  f("spill_stores_bytes", r.spill_stores_bytes);
  f("spill_loads_bytes", r.spill_loads_bytes);
  f("stack_frame_bytes", r.stack_frame_bytes);
  f("shared_bytes", r.shared_bytes);
  f("barriers", r.barriers);
  f("source", r.source);
}

template <typename Self, typename F>
void plain_members(Self& r, F&& f, PtxLaunchResult* /*tag*/) {
  f("file", r.file);
  f("kernel", r.kernel);
  f("launches", r.launches);
  f("sampled", r.sampled);
  f("extrapolated", r.extrapolated);
  f("ctas_total", r.ctas_total);
  f("ctas_simulated", r.ctas_simulated);
  f("warp_insts_simulated", r.warp_insts_simulated);
  f("warp_insts", r.warp_insts);
  f("thread_insts", r.thread_insts);
  f("opcodes_thread", r.opcodes_thread);
  f("opcodes_warp", r.opcodes_warp);
  f("branches", r.branches);
  f("divergent_branches", r.divergent_branches);
  f("branch_efficiency", r.branch_efficiency);
  f("active_lane_efficiency", r.active_lane_efficiency);
  f("warnings", r.warnings);
}

template <typename T>
void put_plain(Json& j, const T& value) {
  plain_members(
      value, [&](const char* key, const auto& member) { j[key] = member; },
      static_cast<T*>(nullptr));
}

template <typename T>
void take_plain(const Json& j, T& value) {
  plain_members(
      value, [&](const char* key, auto& member) { json_get_member_exact(j, key, member); },
      static_cast<T*>(nullptr));
}

// The six byte counters, by their JSON key.
template <typename Result>
auto byte_counters(Result& r) {
  return std::array<std::pair<const char*, decltype(&r.global_ld_bytes)>, 6>{{
      {"global_ld", &r.global_ld_bytes},
      {"global_st", &r.global_st_bytes},
      {"shared_ld", &r.shared_ld_bytes},
      {"shared_st", &r.shared_st_bytes},
      {"local_ld", &r.local_ld_bytes},
      {"local_st", &r.local_st_bytes},
  }};
}

}  // namespace

void to_json(Json& j, const PtxResources& r) {
  j = Json::object();
  put_plain(j, r);
}

void from_json(const Json& j, PtxResources& r) {
  take_plain(j, r);
}

void to_json(Json& j, const PtxLaunchResult& r) {
  j = Json::object();
  put_plain(j, r);
  if (!r.layer.empty()) j["layer"] = r.layer;
  j["grid"] = dim3_json(r.grid);
  j["block"] = dim3_json(r.block);
  Json cls = Json::object();
  for (const auto& [k, v] : r.classes_warp) {
    cls[k] = {{"warp", v}, {"thread", r.classes_thread.at(k)}};
  }
  j["classes"] = cls;
  Json bytes = Json::object();
  for (const auto& [key, member] : byte_counters(r)) bytes[key] = *member;
  j["bytes"] = bytes;
  j["resources"] = r.resources ? Json(*r.resources) : Json(nullptr);
}

void from_json(const Json& j, PtxLaunchResult& r) {
  take_plain(j, r);
  json_get_member_exact(j, "layer", r.layer);
  take_dim3(j, "grid", r.grid);
  take_dim3(j, "block", r.block);
  std::map<std::string, Json> classes;
  json_get_member_exact(j, "classes", classes);
  r.classes_warp.clear();
  r.classes_thread.clear();
  for (const auto& [k, v] : classes) {
    json_get_member_exact(v, "warp", r.classes_warp[k]);
    json_get_member_exact(v, "thread", r.classes_thread[k]);
  }
  Json bytes = Json::object();
  json_get_member_exact(j, "bytes", bytes);
  for (const auto& [key, member] : byte_counters(r)) json_get_member_exact(bytes, key, *member);
  Json resources;
  json_get_member_exact(j, "resources", resources);
  r.resources = resources.is_null() ? std::nullopt : std::optional(resources.get<PtxResources>());
}

void to_json(Json& j, const PtxAnalysisResult& r) {
  j = {{"schema_version", r.schema_version},
       {"kind", kPtxResultsKind},
       {"tool_version", r.tool_version},
       {"source", r.source},
       {"launches", r.launches}};
}

void from_json(const Json& j, PtxAnalysisResult& r) {
  json_get_member_exact(j, "schema_version", r.schema_version);
  json_get_member_exact(j, "tool_version", r.tool_version);
  json_get_member_exact(j, "source", r.source);
  json_get_member_exact(j, "launches", r.launches);
}

PtxAnalysisResult ptx_analysis_result(std::vector<PtxLaunchResult> results) {
  PtxAnalysisResult r;
  r.tool_version = CNNPERF_VERSION;
  r.source =
      "cnnperf ptx: dynamic analysis of PTX on the CPU (warp-level emulation, virtual global "
      "memory)";
  r.launches = std::move(results);
  return r;
}

std::string ptx_results_json(const std::vector<PtxLaunchResult>& results) {
  return json_text(Json(ptx_analysis_result(results))) + "\n";
}

std::string ptx_results_csv(const std::vector<PtxLaunchResult>& results) {
  std::set<std::string> ops;
  for (const auto& r : results) {
    for (const auto& [k, v] : r.opcodes_warp) ops.insert(k);
  }
  std::vector<std::string> header = {"schema_version",
                                     "file",
                                     "kernel",
                                     "layer",
                                     "grid_x",
                                     "grid_y",
                                     "grid_z",
                                     "block_x",
                                     "block_y",
                                     "block_z",
                                     "launches",
                                     "sampled",
                                     "extrapolated",
                                     "ctas_total",
                                     "ctas_simulated",
                                     "warp_insts",
                                     "thread_insts",
                                     "global_ld_bytes",
                                     "global_st_bytes",
                                     "shared_ld_bytes",
                                     "shared_st_bytes",
                                     "local_ld_bytes",
                                     "local_st_bytes",
                                     "branches",
                                     "divergent_branches",
                                     "branch_efficiency",
                                     "active_lane_efficiency",
                                     "registers",
                                     "spill_stores_bytes",
                                     "spill_loads_bytes",
                                     "stack_frame_bytes",
                                     "ptxas_shared_bytes",
                                     "barriers",
                                     "warnings"};
  std::vector<std::string> class_names;
  class_names.reserve(static_cast<std::size_t>(InstClass::kCount));
  for (int k = 0; k < static_cast<int>(InstClass::kCount); ++k) {
    class_names.emplace_back(ptx::to_string(static_cast<InstClass>(k)));
  }
  for (const auto& c : class_names) {
    header.push_back("class_" + c + "_warp");
    header.push_back("class_" + c + "_thread");
  }
  for (const auto& o : ops) header.push_back("warp:" + o);
  for (const auto& o : ops) header.push_back("thread:" + o);
  std::string out = csv_line(header) + "\n";
  auto num = [](double v) {
    char buf[64];
    std::snprintf(buf, sizeof buf, "%.17g", v);
    return std::string(buf);
  };
  for (const auto& r : results) {
    std::vector<std::string> row = {"1",
                                    r.file,
                                    r.kernel,
                                    r.layer,
                                    std::to_string(r.grid.x),
                                    std::to_string(r.grid.y),
                                    std::to_string(r.grid.z),
                                    std::to_string(r.block.x),
                                    std::to_string(r.block.y),
                                    std::to_string(r.block.z),
                                    std::to_string(r.launches),
                                    r.sampled ? "true" : "false",
                                    r.extrapolated ? "true" : "false",
                                    std::to_string(r.ctas_total),
                                    std::to_string(r.ctas_simulated),
                                    num(r.warp_insts),
                                    num(r.thread_insts),
                                    num(r.global_ld_bytes),
                                    num(r.global_st_bytes),
                                    num(r.shared_ld_bytes),
                                    num(r.shared_st_bytes),
                                    num(r.local_ld_bytes),
                                    num(r.local_st_bytes),
                                    num(r.branches),
                                    num(r.divergent_branches),
                                    num(r.branch_efficiency),
                                    num(r.active_lane_efficiency)};
    if (r.resources) {
      for (int v :
           {r.resources->registers, r.resources->spill_stores_bytes, r.resources->spill_loads_bytes,
            r.resources->stack_frame_bytes, r.resources->shared_bytes, r.resources->barriers}) {
        row.push_back(std::to_string(v));
      }
    } else {
      for (int i = 0; i < 6; ++i) row.emplace_back();
    }
    std::string w;
    for (const auto& s : r.warnings) w += (w.empty() ? "" : "; ") + s;
    row.push_back(w);
    for (const auto& c : class_names) {
      row.push_back(num(r.classes_warp.at(c)));
      row.push_back(num(r.classes_thread.at(c)));
    }
    for (const auto& o : ops) {
      auto it = r.opcodes_warp.find(o);
      row.push_back(num(it == r.opcodes_warp.end() ? 0 : it->second));
    }
    for (const auto& o : ops) {
      auto it = r.opcodes_thread.find(o);
      row.push_back(num(it == r.opcodes_thread.end() ? 0 : it->second));
    }
    out += csv_line(row) + "\n";
  }
  return out;
}

std::string ptx_results_table(const std::vector<PtxLaunchResult>& results) {
  std::string out;
  for (const auto& r : results) {
    out += "kernel " + r.kernel + (r.layer.empty() ? "" : "  (" + r.layer + ")") + "\n";
    out += "  grid " + std::to_string(r.grid.x) + "," + std::to_string(r.grid.y) + "," +
           std::to_string(r.grid.z) + "  block " + std::to_string(r.block.x) + "," +
           std::to_string(r.block.y) + "," + std::to_string(r.block.z) + "  CTAs simulated " +
           std::to_string(r.ctas_simulated) + "/" + std::to_string(r.ctas_total) +
           (r.extrapolated ? " (trip-count extrapolated)" : "") +
           (r.launches > 1 ? "  launches " + std::to_string(r.launches) : "") + "\n";
    out += "  warp insts " + format_number(r.warp_insts, 6) + "  thread insts " +
           format_number(r.thread_insts, 6) + "  branch eff " +
           format_number(100 * r.branch_efficiency, 4) + "%  lane eff " +
           format_number(100 * r.active_lane_efficiency, 4) + "%\n";
    out += "  bytes: global ld " + format_number(r.global_ld_bytes, 6) + " st " +
           format_number(r.global_st_bytes, 6) + "  shared ld " +
           format_number(r.shared_ld_bytes, 6) + " st " + format_number(r.shared_st_bytes, 6) +
           "  local ld " + format_number(r.local_ld_bytes, 6) + " st " +
           format_number(r.local_st_bytes, 6) + "\n";
    if (r.resources) {
      out += "  ptxas " + r.resources->arch + ": " + std::to_string(r.resources->registers) +
             " registers, " + std::to_string(r.resources->shared_bytes) + " B smem, spills " +
             std::to_string(r.resources->spill_stores_bytes) + "/" +
             std::to_string(r.resources->spill_loads_bytes) + " B\n";
    }
    std::vector<std::vector<std::string>> rows;
    for (const auto& [k, v] : r.classes_warp) {
      if (v > 0) {
        rows.push_back({k, format_number(v, 6), format_number(r.classes_thread.at(k), 6),
                        format_number(100.0 * v / std::max(1.0, r.warp_insts), 3)});
      }
    }
    out += format_table({"class", "warp", "thread", "warp_%"}, rows);
    std::vector<std::pair<double, std::string>> top;
    for (const auto& [k, v] : r.opcodes_warp) top.emplace_back(v, k);
    std::sort(top.rbegin(), top.rend());
    rows.clear();
    for (std::size_t i = 0; i < top.size() && i < 12; ++i) {
      rows.push_back({top[i].second, format_number(top[i].first, 6),
                      format_number(r.opcodes_thread.at(top[i].second), 6)});
    }
    out += format_table({"opcode (top 12)", "warp", "thread"}, rows);
    for (const auto& w : r.warnings) out += "  warning: " + w + "\n";
    out += "\n";
  }
  return out;
}

void ptx_clear_caches_analyze() {
  std::lock_guard<std::mutex> lock(g_mutex);
  g_modules.clear();
  g_results.clear();
  g_ptxas.clear();
}

}  // namespace cnnperf
