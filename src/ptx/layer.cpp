// SPDX-License-Identifier: Apache-2.0
// Layers on the reference kernels: maps a Layer onto the bundled reference kernels (models/ptx/),
// builds the launch (grid, block, parameters), and derives normalised features for the regressors.
#include <algorithm>
#include <cmath>
#include <mutex>
#include <sstream>

#include "cnnperf/common/error.hpp"
#include "cnnperf/common/io.hpp"
#include "cnnperf/ptx/ptx.hpp"

namespace cnnperf {

void ptx_clear_caches_analyze();

namespace {

struct Tile {
  int bm, bn, bk, tm, tn;
  [[nodiscard]] int threads() const { return (bm / tm) * (bn / tn); }
};
constexpr Tile kConvTiles[] = {{128, 128, 8, 8, 8},
                               {128, 64, 8, 8, 4},
                               {64, 64, 8, 4, 4},
                               {64, 32, 8, 4, 4},
                               {32, 32, 8, 2, 2}};
constexpr Tile kGemmTiles[] = {{64, 64, 8, 4, 4}, {32, 32, 8, 2, 2}};

std::string tile_entry(const char* base, const Tile& t, const char* suffix) {
  std::ostringstream s;
  s << base << "ILi" << t.bm << "ELi" << t.bn << "ELi" << t.bk << "ELi" << t.tm << "ELi" << t.tn
    << "EEv" << suffix;
  return s.str();
}

std::int64_t ceil_div(std::int64_t a, std::int64_t b) {
  return (a + b - 1) / b;
}

/// Picks the largest tile that still yields enough CTAs and little padding waste
/// (a simple heuristic in the spirit of cuDNN/CUTLASS tile selection).
Tile pick_tile(std::int64_t m, std::int64_t n, const Tile* tiles, std::size_t count) {
  for (std::size_t i = 0; i < count; ++i) {
    const Tile& t = tiles[i];
    const std::int64_t ctas = ceil_div(m, t.bm) * ceil_div(n, t.bn);
    const double useful = static_cast<double>(m * n) /
                          static_cast<double>(ceil_div(m, t.bm) * t.bm * ceil_div(n, t.bn) * t.bn);
    if (ctas >= 64 && useful >= 0.75) return t;
  }
  return tiles[count - 1];
}

std::string describe(const Layer& l) {
  std::ostringstream s;
  s << to_string(l.op) << ":batch=" << l.batch << ",c_in=" << l.c_in << ",h_in=" << l.h_in
    << ",w_in=" << l.w_in << ",c_out=" << l.c_out;
  if (l.op == Op::kConv2d || l.op == Op::kMaxPool || l.op == Op::kAvgPool) {
    s << ",kernel=" << l.kernel_h << "x" << l.kernel_w << ",stride=" << l.stride_h << "x"
      << l.stride_w << ",pad=" << l.pad_h << "x" << l.pad_w;
  }
  if (l.groups != 1) s << ",groups=" << l.groups;
  return s.str();
}

struct Launch {
  std::string file;
  std::string kernel;
  ptx::LaunchSpec spec;
  int launches = 1;
};

std::string ptx_path(const std::string& stem, const std::string& arch) {
  if (arch != "sm_80" && arch != "sm_90") {
    throw ParameterError("arch", "expected sm_80 or sm_90, got '" + arch + "'");
  }
  return find_resource("models/ptx/" + stem + "." + arch + ".ptx").string();
}

void set_params(ptx::LaunchSpec& s, int first, const std::vector<std::int64_t>& values) {
  for (std::size_t i = 0; i < values.size(); ++i) {
    s.params[first + static_cast<int>(i)] = static_cast<std::uint64_t>(values[i]);
  }
}

/// Extrapolation points for a loop over `extent` in steps of `bk`: keep extent % bk so
/// partial-tile behaviour is identical, and simulate 1 and 2 extra steps.
void extrapolate(ptx::LaunchSpec& s, int param, std::int64_t extent, std::int64_t per_unit, int bk,
                 std::int64_t min_steps) {
  // Units (e.g. channels) whose loop length is extent*per_unit; keep (units*per_unit) % bk.
  const std::int64_t steps = ceil_div(extent * per_unit, bk);
  if (steps <= min_steps) return;
  std::int64_t lo = extent % bk;
  if (lo == 0) lo = bk;
  lo += bk;
  const std::int64_t hi = lo + bk;
  if (hi >= extent) return;
  s.extrapolate_param = param;
  s.extrapolate_lo = static_cast<std::uint64_t>(lo);
  s.extrapolate_hi = static_cast<std::uint64_t>(hi);
}

std::vector<Launch> plan(const Layer& l, const PtxLayerOptions& o) {
  std::vector<Launch> out;
  const std::int64_t P = l.h_out(), Q = l.w_out();
  Launch L;
  L.spec.full = o.full;
  L.spec.max_warp_insts = o.max_warp_insts;
  L.spec.progress = o.progress;
  auto elementwise_grid = [&](std::int64_t total) {
    L.spec.block = {256, 1, 1};
    L.spec.grid = {std::max<std::int64_t>(1, std::min<std::int64_t>(ceil_div(total, 256), 65535)),
                   1, 1};
  };
  switch (l.op) {
    case Op::kConv2d: {
      if (ptx_depthwise_layer(l)) {
        L.file = ptx_path("depthwise", o.arch);
        L.kernel = "depthwise_conv2d_nchw";
        const std::int64_t total = l.batch * l.c_in * P * Q;
        L.spec.block = {256, 1, 1};
        L.spec.grid = {ceil_div(total, 256), 1, 1};
        L.spec.params[2] = l.bias ? ptx::fake_pointer(2) : 0;
        set_params(L.spec, 4,
                   {l.batch, l.c_in, l.h_in, l.w_in, l.kernel_h, l.kernel_w, P, Q, l.stride_h,
                    l.stride_w, l.pad_h, l.pad_w, l.dilation_h, l.dilation_w, 0});
        out.push_back(L);
        return out;
      }
      // Grouped convolutions run one launch per group on the per-group shape.
      const std::int64_t c = l.c_in / l.groups, k = l.c_out / l.groups;
      L.launches = static_cast<int>(l.groups);
      const bool direct = o.conv_kernel == PtxConvKernel::kDirect;
      L.spec.params[2] = l.bias ? ptx::fake_pointer(2) : 0;
      const std::vector<std::int64_t> shape = {
          l.batch, c,          l.h_in,     l.w_in,  k,       l.kernel_h,   l.kernel_w,   P,
          Q,       l.stride_h, l.stride_w, l.pad_h, l.pad_w, l.dilation_h, l.dilation_w, 0};
      set_params(L.spec, 4, shape);
      if (direct) {
        L.file = ptx_path("conv_direct", o.arch);
        L.kernel = "conv2d_direct_nchw";
        const std::int64_t total = l.batch * k * P * Q;
        L.spec.block = {256, 1, 1};
        L.spec.grid = {ceil_div(total, 256), 1, 1};
        if (!o.full) extrapolate(L.spec, 5, c, 1, 1, 8);
        if (L.spec.extrapolate_param) {
          L.spec.extrapolate_lo = 2;
          L.spec.extrapolate_hi = 4;
        }
      } else {
        const Tile t = pick_tile(k, l.batch * P * Q, kConvTiles, std::size(kConvTiles));
        L.file = ptx_path("conv_implicit_gemm", o.arch);
        L.kernel = tile_entry("_Z12conv2d_igemm", t, "PKfS1_S1_Pfiiiiiiiiiiiiiiii");
        L.spec.block = {t.threads(), 1, 1};
        L.spec.grid = {ceil_div(l.batch * P * Q, t.bn), ceil_div(k, t.bm), 1};
        if (!o.full) extrapolate(L.spec, 5, c, l.kernel_h * l.kernel_w, t.bk, 24);
      }
      out.push_back(L);
      return out;
    }
    case Op::kLinear: {
      const Tile t = pick_tile(l.batch, l.c_out, kGemmTiles, std::size(kGemmTiles));
      L.file = ptx_path("gemm", o.arch);
      L.kernel = tile_entry("_Z7gemm_nt", t, "PKfS1_S1_Pfiii");
      L.spec.block = {t.threads(), 1, 1};
      L.spec.grid = {ceil_div(l.c_out, t.bn), ceil_div(l.batch, t.bm), 1};
      L.spec.params[2] = l.bias ? ptx::fake_pointer(2) : 0;
      set_params(L.spec, 4, {l.batch, l.c_out, l.c_in});
      if (!o.full) extrapolate(L.spec, 6, l.c_in, 1, t.bk, 24);
      out.push_back(L);
      return out;
    }
    case Op::kMaxPool:
    case Op::kAvgPool:
    case Op::kGlobalAvgPool: {
      const bool global = l.op == Op::kGlobalAvgPool;
      L.file = ptx_path("pool", o.arch);
      L.kernel = l.op == Op::kMaxPool ? "maxpool2d_nchw" : "avgpool2d_nchw";
      const std::int64_t p = global ? 1 : P, q = global ? 1 : Q;
      const std::int64_t total = l.batch * l.c_in * p * q;
      L.spec.block = {256, 1, 1};
      L.spec.grid = {ceil_div(total, 256), 1, 1};
      set_params(L.spec, 2,
                 {l.batch, l.c_in, l.h_in, l.w_in, global ? l.h_in : l.kernel_h,
                  global ? l.w_in : l.kernel_w, p, q, global ? 1 : l.stride_h,
                  global ? 1 : l.stride_w, global ? 0 : l.pad_h, global ? 0 : l.pad_w});
      out.push_back(L);
      return out;
    }
    case Op::kBatchNorm:
    case Op::kRelu: {
      // Inference batch norm (scale + shift per channel); a standalone ReLU runs the same
      // kernel's ReLU path, which adds one fused multiply-add per element.
      L.file = ptx_path("elementwise", o.arch);
      L.kernel = "batchnorm_act_nchw";
      const std::int64_t total = l.batch * l.c_in * l.h_in * l.w_in;
      elementwise_grid(total);
      set_params(L.spec, 4, {total, l.c_in, l.h_in * l.w_in, l.op == Op::kRelu ? 1 : 0});
      out.push_back(L);
      return out;
    }
    case Op::kAdd: {
      L.file = ptx_path("elementwise", o.arch);
      L.kernel = "add_act";
      const std::int64_t total = l.batch * l.c_in * l.h_in * l.w_in;
      elementwise_grid(total);
      set_params(L.spec, 3, {total, 0});
      out.push_back(L);
      return out;
    }
    default: break;
  }
  throw InputError(
      "ptx layer: no reference kernel for op '" + to_string(l.op) +
      "' (supported: conv2d, linear, maxpool, avgpool, global_avgpool, batchnorm, relu, add)");
}

}  // namespace

const char* to_string(PtxConvKernel kernel) {
  for (const auto& [name, value] : kPtxConvKernelNames) {
    if (value == kernel) return name;
  }
  return "auto";
}

bool ptx_depthwise_layer(const Layer& layer) {
  return layer.op == Op::kConv2d && layer.groups == layer.c_in && layer.c_out == layer.c_in &&
         layer.groups > 1;
}

std::vector<PtxLaunchResult> analyze_layer(const Layer& layer, const PtxLayerOptions& options) {
  // The reference kernels are fp32 forward passes; another layer would be counted as one.
  if (layer.dtype != DType::kFp32 || layer.pass != Pass::kForward) {
    throw InputError(
        "ptx layer: the reference kernels are fp32 forward passes; expected dtype "
        "fp32 and pass forward, got " +
        to_string(layer.dtype) + " " + to_string(layer.pass));
  }
  std::vector<PtxLaunchResult> out;
  for (const Launch& L : plan(layer, options)) {
    const ptx::Dim3& g = L.spec.grid;
    if (g.x > ptx::kMaxGridX || g.y > ptx::kMaxGridYZ || g.z > ptx::kMaxGridYZ) {
      // Said for the layer: its caller set no grid for the launch's own check to name.
      throw InputError("the layer needs a grid of " + std::to_string(g.x) + "," +
                       std::to_string(g.y) + "," + std::to_string(g.z) + " CTAs for " + L.kernel +
                       ", beyond CUDA's launch limits (2147483647 x 65535 x 65535); expected a "
                       "smaller layer");
    }
    PtxLaunchResult r = analyze_ptx_file(L.file, L.kernel, L.spec, options.arch);
    r.layer = describe(layer);
    r.launches = L.launches;
    if (L.launches > 1) {
      // Scale every count to all launches of the layer.
      const double k = L.launches;
      for (auto* m : {&r.opcodes_thread, &r.opcodes_warp, &r.classes_thread, &r.classes_warp}) {
        for (auto& [name, v] : *m) v *= k;
      }
      for (double* v : {&r.warp_insts, &r.thread_insts, &r.branches, &r.divergent_branches,
                        &r.global_ld_bytes, &r.global_st_bytes, &r.shared_ld_bytes,
                        &r.shared_st_bytes, &r.local_ld_bytes, &r.local_st_bytes}) {
        *v *= k;
      }
    }
    out.push_back(std::move(r));
  }
  return out;
}

namespace {
std::mutex g_feature_mutex;
std::map<std::string, std::map<std::string, double>> g_feature_cache;
}  // namespace

void ptx_clear_caches() {
  ptx_clear_caches_analyze();
  std::lock_guard<std::mutex> lock(g_feature_mutex);
  g_feature_cache.clear();
}

std::map<std::string, double> ptx_layer_features(const Layer& layer) {
  auto& mutex = g_feature_mutex;
  auto& cache = g_feature_cache;
  const std::string key = describe(layer) + (layer.bias ? ",bias" : "") +
                          ",dil=" + std::to_string(layer.dilation_h) + "x" +
                          std::to_string(layer.dilation_w);
  {
    std::lock_guard<std::mutex> lock(mutex);
    auto it = cache.find(key);
    if (it != cache.end()) return it->second;
  }
  std::map<std::string, double> f;
  std::vector<PtxLaunchResult> rs;
  try {
    rs = analyze_layer(layer, PtxLayerOptions{});
  } catch (const InputError&) {
    rs.clear();
  }
  if (rs.empty()) {
    f["ptx_available"] = 0;
  } else {
    double warp = 0, thread = 0, gbytes = 0, sbytes = 0, branches = 0, divergent = 0, fma = 0;
    std::map<std::string, double> cls;
    for (const auto& r : rs) {
      warp += r.warp_insts;
      thread += r.thread_insts;
      gbytes += r.global_ld_bytes + r.global_st_bytes;
      sbytes += r.shared_ld_bytes + r.shared_st_bytes;
      branches += r.branches;
      divergent += r.divergent_branches;
      for (const auto& [k, v] : r.classes_warp) cls[k] += v;
      for (const auto& [k, v] : r.opcodes_thread) {
        if (k.rfind("fma.", 0) == 0 && k.find("f32") != std::string::npos) fma += v;
      }
    }
    const double outs = static_cast<double>(std::max<std::int64_t>(1, layer.output_elements()));
    f["ptx_available"] = 1;
    f["ptx_warp_insts_per_out"] = warp / outs;
    f["ptx_thread_insts_per_out"] = thread / outs;
    for (const char* c : {"fp32", "int", "ld_global", "st_global", "ld_shared", "st_shared",
                          "control", "sync", "conversion", "move", "predicate"}) {
      f[std::string("ptx_share_") + c] = warp > 0 ? cls[c] / warp : 0;
    }
    const double macs = static_cast<double>(layer.macs());
    f["ptx_fma_per_mac"] = macs > 0 ? fma / macs : 0;
    f["ptx_global_bytes_per_out"] = gbytes / outs;
    f["ptx_shared_bytes_per_out"] = sbytes / outs;
    f["ptx_global_bytes_ratio"] = layer.bytes() > 0 ? gbytes / layer.bytes() : 0;
    f["ptx_branch_efficiency"] = branches > 0 ? 1.0 - divergent / branches : 1.0;
    f["ptx_active_lane_efficiency"] = warp > 0 ? thread / (32.0 * warp) : 1.0;
    const auto& r0 = rs.front();
    f["ptx_ctas"] = static_cast<double>(r0.ctas_total) * r0.launches;
    f["ptx_threads_per_cta"] = static_cast<double>(r0.block.count());
    f["ptx_registers"] = r0.resources ? r0.resources->registers : 0;
    f["ptx_shared_bytes_per_cta"] = r0.resources ? r0.resources->shared_bytes : 0;
  }
  std::lock_guard<std::mutex> lock(mutex);
  cache.emplace(key, f);
  return f;
}

}  // namespace cnnperf
