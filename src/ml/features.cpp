// SPDX-License-Identifier: Apache-2.0
// Feature extraction for the learned models.
#include "cnnperf/ml/features.hpp"

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <iterator>
#include <map>
#include <mutex>
#include <thread>
#include <utility>

#include "cnnperf/common/error.hpp"
#include "cnnperf/common/io.hpp"
#include "cnnperf/predict/analytical.hpp"
#if __has_include("cnnperf/ptx/ptx.hpp")
#include "cnnperf/ptx/ptx.hpp"
#define CNNPERF_HAVE_PTX_FEATURES 1
#endif

namespace cnnperf {

namespace {

double lg(double v) {
  return std::log2(std::max(v, 1e-12));
}

struct FeatureDoc {
  const char* group;
  const char* name;
  const char* doc;
};

// Order here is the column order of every matrix.
constexpr FeatureDoc kFeatureDocs[] = {
    {"layer", "log2_batch", "log2 of the batch (rows for linear)"},
    {"layer", "log2_c_in", "log2 of input channels / in features"},
    {"layer", "log2_c_out", "log2 of output channels / out features"},
    {"layer", "log2_h_in", "log2 of input height"},
    {"layer", "log2_w_in", "log2 of input width"},
    {"layer", "log2_h_out", "log2 of output height"},
    {"layer", "kernel_h", "kernel height"},
    {"layer", "kernel_w", "kernel width"},
    {"layer", "stride_h", "stride"},
    {"layer", "pad_h", "padding"},
    {"layer", "log2_groups", "log2 of groups"},
    {"layer", "depthwise", "1 when groups == c_in > 1"},
    {"layer", "bias", "1 when the layer adds a bias"},
    {"layer", "fp16", "1 for fp16 tensors"},
    {"layer", "training_pass", "1 when the row times a whole training step"},
    {"layer", "op_code", "operator id (enum order), distinguishes pointwise ops"},
    {"layer", "c_in_mod32", "c_in mod 32 (vector-width and tile alignment)"},
    {"layer", "c_out_mod32", "c_out mod 32"},
    {"analytical", "log2_flops", "log2 forward FLOPs (multiply-add = 2)"},
    {"analytical", "log2_bytes", "log2 compulsory DRAM bytes"},
    {"analytical", "log2_intensity", "log2 FLOPs per byte"},
    {"analytical", "log2_roofline_ms", "log2 of the roofline bound on this GPU"},
    {"analytical", "log2_analytical_ms",
     "log2 of the analytical latency without layout transposes"},
    {"analytical", "log2_compute_ms", "log2 quantized compute time of the chosen mapping"},
    {"analytical", "log2_memory_ms", "log2 modeled DRAM traffic time"},
    {"analytical", "tile_efficiency", "useful share of padded GEMM tiles"},
    {"analytical", "log2_waves", "log2 CTA waves over the SMs"},
    {"analytical", "wave_efficiency", "waves / ceil(waves)"},
    {"analytical", "occupancy", "resident warps / max warps per SM"},
    {"analytical", "winograd", "1 when the analytical choice is Winograd"},
    {"analytical", "log2_gemm_m", "log2 GEMM M of the mapping"},
    {"analytical", "log2_gemm_n", "log2 GEMM N"},
    {"analytical", "log2_gemm_k", "log2 GEMM K"},
    {"gpu", "log2_fp32_tflops", "log2 FP32 peak"},
    {"gpu", "log2_bandwidth_gbs", "log2 DRAM bandwidth"},
    {"gpu", "sm_count", "streaming multiprocessors"},
    {"gpu", "boost_clock_ghz", "boost clock"},
    {"gpu", "log2_l2_mb", "log2 L2 size"},
    {"gpu", "compute_capability", "major.minor as a number"},
    {"gpu", "shared_mem_per_sm_kb", "shared memory per SM"},
    {"gpu", "flops_per_byte", "machine balance: FP32 peak / bandwidth"},
    {"gpu", "log2_tensor_tflops", "log2 FP16 tensor peak (0 when none)"},
    {"source", "src_neusight", "row measured by NeuSight (CUDA events, PyTorch 2.1)"},
    {"source", "src_mlpredict", "row measured by MLPredict (TF 1.10 session wall clock)"},
    {"source", "src_cnnperf_profile", "row measured by cnnperf profile (CUPTI kernel time)"},
    // Residues of the two non-linear modes (tile padding, partial last wave) at the tile
    // sizes cuDNN kernels use; `layer` only has mod 32 and `analytical` only our one mapping.
    {"quant", "c_out_mod64", "c_out mod 64"},
    {"quant", "c_out_mod128", "c_out mod 128"},
    {"quant", "c_in_mod8", "c_in mod 8 (vector loads of the reduction dimension)"},
    {"quant", "npq_mod32", "(batch * h_out * w_out) mod 32: GEMM M of an implicit GEMM"},
    {"quant", "npq_mod64", "(batch * h_out * w_out) mod 64"},
    {"quant", "npq_mod128", "(batch * h_out * w_out) mod 128"},
    {"quant", "waves_frac", "fractional part of the analytical CTA waves (0 = full last wave)"},
    // What the timed region held besides the layer (MLPredict: activation, optimizer update,
    // an explicit pad of the input).
    {"setup", "act_relu", "1 when a relu is timed with the layer (column activation)"},
    {"setup", "act_tanh", "1 when a tanh is timed with the layer"},
    {"setup", "act_sigmoid", "1 when a sigmoid is timed with the layer"},
    {"setup", "opt_sgd",
     "1 when the training step updates weights with plain SGD (column optimizer)"},
    {"setup", "opt_momentum", "1 for a momentum update (one state tensor per weight)"},
    {"setup", "opt_adagrad", "1 for an Adagrad update (one state tensor)"},
    {"setup", "opt_adadelta", "1 for an Adadelta update (two state tensors)"},
    {"setup", "opt_rmsprop", "1 for an RMSProp update (two state tensors)"},
    {"setup", "opt_adam", "1 for an Adam update (two state tensors)"},
    {"setup", "pad_asymmetric",
     "1 when bottom/right padding differs from top/left: cuDNN pads symmetrically, so the "
     "framework pads the input in a separate op first (TensorFlow SAME, odd total)"},
};

#ifdef CNNPERF_HAVE_PTX_FEATURES
const std::vector<std::string>& ptx_names() {
  // The feature keys are fixed by the PTX analyzer; read them off one reference layer.
  static const std::vector<std::string> names = [] {
    Layer probe;
    probe.c_in = probe.c_out = 64;
    probe.h_in = probe.w_in = 14;
    probe.kernel_h = probe.kernel_w = 3;
    probe.pad_h = probe.pad_w = 1;
    std::vector<std::string> out;
    for (const auto& [name, value] : ptx_layer_features(probe)) out.push_back(name);
    return out;
  }();
  return names;
}
#endif

// The feature groups in the order parse and to_string name them.
constexpr std::pair<std::string_view, bool FeatureSpec::*> kGroups[] = {
    {"layer", &FeatureSpec::layer}, {"analytical", &FeatureSpec::analytical},
    {"gpu", &FeatureSpec::gpu},     {"source", &FeatureSpec::source},
    {"ptx", &FeatureSpec::ptx},     {"quant", &FeatureSpec::quant},
    {"setup", &FeatureSpec::setup},
};

}  // namespace

const std::vector<std::string>& known_sources() {
  static const std::vector<std::string> sources{"neusight", "mlpredict", "cnnperf-profile"};
  return sources;
}

FeatureSpec FeatureSpec::parse(std::string_view text) {
  FeatureSpec spec;
  const std::string all = to_lower(text);
  if (all.empty() || all == "default") return spec;
  if (all == "all") {
    spec.ptx = true;
    spec.quant = true;
    return spec;
  }
  const bool edits = all.front() == '+' || all.front() == '-';
  if (!edits) {
    for (const auto& group : kGroups) spec.*(group.second) = false;
  }
  std::size_t start = 0;
  while (start <= all.size()) {
    const std::size_t comma = all.find(',', start);
    std::string item =
        all.substr(start, comma == std::string::npos ? std::string::npos : comma - start);
    start = comma == std::string::npos ? all.size() + 1 : comma + 1;
    if (item.empty()) continue;
    bool on = true;
    if (item.front() == '+' || item.front() == '-') {
      on = item.front() == '+';
      item = item.substr(1);
    }
    const auto* group = std::find_if(std::begin(kGroups), std::end(kGroups),
                                     [&](const auto& g) { return g.first == item; });
    if (group == std::end(kGroups)) {
      throw ParameterError(
          "features",
          "unknown group '" + item +
              "' (expected layer, analytical, gpu, source, setup, ptx, quant, default or all)");
    }
    spec.*(group->second) = on;
  }
  if (std::none_of(std::begin(kGroups), std::end(kGroups),
                   [&](const auto& g) { return spec.*(g.second); })) {
    throw ParameterError("features", "expected at least one feature group");
  }
#ifndef CNNPERF_HAVE_PTX_FEATURES
  if (spec.ptx) throw ParameterError("features", "ptx features are not available in this build");
#endif
  return spec;
}

std::string FeatureSpec::to_string() const {
  std::vector<std::string> on;
  for (const auto& [name, member] : kGroups) {
    if (this->*member) on.emplace_back(name);
  }
  return join(on, ",");
}

OpFamily op_family(Op op) {
  switch (op_class(op)) {
    case OpClass::kConv: return OpFamily::kConv;
    case OpClass::kGemm: return OpFamily::kGemm;
    default: return OpFamily::kPointwise;
  }
}

std::string to_string(OpFamily family) {
  switch (family) {
    case OpFamily::kConv: return "conv";
    case OpFamily::kGemm: return "gemm";
    case OpFamily::kPointwise: return "pointwise";
  }
  return "pointwise";
}

OpFamily op_family_from_string(std::string_view text) {
  if (text == "conv") return OpFamily::kConv;
  if (text == "gemm") return OpFamily::kGemm;
  if (text == "pointwise") return OpFamily::kPointwise;
  throw InputError("unknown op family '" + std::string(text) +
                   "' (expected conv, gemm, pointwise)");
}

std::vector<std::string> feature_names(const FeatureSpec& spec) {
  std::vector<std::string> names;
  for (const auto& f : kFeatureDocs) {
    const std::string group = f.group;
    if ((group == "layer" && spec.layer) || (group == "analytical" && spec.analytical) ||
        (group == "gpu" && spec.gpu) || (group == "source" && spec.source)) {
      names.emplace_back(f.name);
    }
  }
  // setup follows the default groups; a model file without it does not list it.
  for (const auto& f : kFeatureDocs) {
    if (spec.setup && std::string_view(f.group) == "setup") names.emplace_back(f.name);
  }
#ifdef CNNPERF_HAVE_PTX_FEATURES
  if (spec.ptx) {
    for (const auto& n : ptx_names()) names.push_back("ptx_" + n);
  }
#endif
  // quant columns come last, after ptx: appending leaves every existing group's position as it was.
  for (const auto& f : kFeatureDocs) {
    if (spec.quant && std::string_view(f.group) == "quant") names.emplace_back(f.name);
  }
  return names;
}

std::vector<std::string> feature_groups(const FeatureSpec& spec) {
  std::map<std::string, std::string> group_of;
  for (const auto& f : kFeatureDocs) group_of[f.name] = f.group;
  std::vector<std::string> groups;
  for (const auto& name : feature_names(spec)) {
    const auto it = group_of.find(name);
    groups.push_back(it != group_of.end() ? it->second : std::string("ptx"));
  }
  return groups;
}

std::vector<double> feature_row(const Layer& l, const GpuSpec& g, std::string_view source,
                                const FeatureSpec& spec) {
  std::vector<double> row;
  row.reserve(64);
  if (spec.layer) {
    row.insert(row.end(),
               {lg(static_cast<double>(l.batch)), lg(static_cast<double>(l.c_in)),
                lg(static_cast<double>(l.c_out)), lg(static_cast<double>(l.h_in)),
                lg(static_cast<double>(l.w_in)), lg(static_cast<double>(l.h_out())),
                static_cast<double>(l.kernel_h), static_cast<double>(l.kernel_w),
                static_cast<double>(l.stride_h), static_cast<double>(l.pad_h),
                lg(static_cast<double>(l.groups)), (l.groups > 1 && l.groups == l.c_in) ? 1.0 : 0.0,
                l.bias ? 1.0 : 0.0, l.dtype == DType::kFp16 ? 1.0 : 0.0,
                l.pass == Pass::kTraining ? 1.0 : 0.0, static_cast<double>(static_cast<int>(l.op)),
                static_cast<double>(l.c_in % 32), static_cast<double>(l.c_out % 32)});
  }
  if (spec.analytical) {
    const LayerEstimate e = estimate_layer(l, g);
    row.insert(row.end(),
               {lg(e.flops), lg(e.bytes), lg(e.arithmetic_intensity), lg(e.roofline_ms),
                lg(e.main_kernels_ms()), lg(e.compute_ms), lg(e.memory_ms), e.tile_efficiency,
                lg(e.waves), e.wave_efficiency, e.occupancy, e.algorithm == "winograd" ? 1.0 : 0.0,
                lg(e.gemm_m), lg(e.gemm_n), lg(e.gemm_k)});
  }
  if (spec.gpu) {
    const auto first = static_cast<std::ptrdiff_t>(row.size());
    const double cc = g.compute_capability_number();
    row.insert(row.end(),
               {lg(g.fp32_tflops), lg(g.memory_bandwidth_gbs), static_cast<double>(g.sm_count),
                g.boost_clock_mhz / 1000.0, lg(g.l2_cache_mb), cc, g.shared_mem_per_sm_kb,
                g.memory_bandwidth_gbs > 0 ? g.fp32_tflops * 1000 / g.memory_bandwidth_gbs : 0,
                g.tensor_fp16_tflops > 0 ? lg(g.tensor_fp16_tflops) : 0.0});
    if (spec.gpu_held_constant) std::fill(row.begin() + first, row.end(), 0.0);
  }
  if (spec.source) {
    for (const auto& s : known_sources()) row.push_back(source == s ? 1.0 : 0.0);
  }
  if (spec.setup) {
    for (const Activation a : {Activation::kRelu, Activation::kTanh, Activation::kSigmoid}) {
      row.push_back(l.activation == a ? 1.0 : 0.0);
    }
    for (const Optimizer o : {Optimizer::kSgd, Optimizer::kMomentum, Optimizer::kAdagrad,
                              Optimizer::kAdadelta, Optimizer::kRmsprop, Optimizer::kAdam}) {
      row.push_back(l.optimizer == o ? 1.0 : 0.0);
    }
    row.push_back(l.pad_bottom() != l.pad_h || l.pad_right() != l.pad_w ? 1.0 : 0.0);
  }
#ifdef CNNPERF_HAVE_PTX_FEATURES
  if (spec.ptx) {
    const auto values = ptx_layer_features(l);
    for (const auto& n : ptx_names()) {
      const auto it = values.find(n);
      row.push_back(it == values.end() ? 0.0 : it->second);
    }
  }
#endif
  if (spec.quant) {
    const auto npq = l.batch * l.h_out() * l.w_out();
    const double waves = estimate_layer(l, g).waves;
    row.insert(row.end(), {static_cast<double>(l.c_out % 64), static_cast<double>(l.c_out % 128),
                           static_cast<double>(l.c_in % 8), static_cast<double>(npq % 32),
                           static_cast<double>(npq % 64), static_cast<double>(npq % 128),
                           waves - std::floor(waves)});
  }
  return row;
}

FeatureMatrix build_feature_matrix(const std::vector<const Layer*>& layers,
                                   const std::vector<const GpuSpec*>& gpus,
                                   const std::vector<std::string>& sources,
                                   const FeatureSpec& spec) {
  const auto names = feature_names(spec);
  FeatureMatrix m(layers.size(), names.size());
  m.names = names;
  // Rows are independent: split them over the cores (the analytical model is the cost).
  const unsigned threads = std::max(1u, std::min(4u, std::thread::hardware_concurrency()));
  std::vector<std::thread> pool;
  std::exception_ptr failure;
  std::mutex failure_mutex;
  for (unsigned t = 0; t < threads; ++t) {
    pool.emplace_back([&, t] {
      try {
        for (std::size_t r = t; r < layers.size(); r += threads) {
          const auto row = feature_row(*layers[r], *gpus[r], sources[r], spec);
          std::copy(row.begin(), row.end(),
                    m.values.begin() + static_cast<std::ptrdiff_t>(r * m.cols));
        }
      } catch (...) {
        const std::lock_guard lock(failure_mutex);
        failure = std::current_exception();
      }
    });
  }
  for (auto& th : pool) th.join();
  if (failure) std::rethrow_exception(failure);
  return m;
}

const std::map<std::string, std::string>& feature_docs() {
  static const std::map<std::string, std::string> docs = [] {
    std::map<std::string, std::string> out;
    for (const auto& f : kFeatureDocs) out[f.name] = std::string(f.group) + ": " + f.doc;
    return out;
  }();
  return docs;
}

}  // namespace cnnperf
