// SPDX-License-Identifier: Apache-2.0
// Layer shapes, counts (params, MACs, FLOPs, compulsory bytes) and enum names.
#include "cnnperf/model/layer.hpp"

#include <algorithm>
#include <array>
#include <cstdio>
#include <tuple>
#include <utility>

#include "cnnperf/common/error.hpp"
#include "cnnperf/common/io.hpp"

namespace cnnperf {

namespace {

struct OpName {
  Op op;
  const char* name;
};

constexpr std::array kOpNames{
    OpName{Op::kConv2d, "conv2d"},
    OpName{Op::kLinear, "linear"},
    OpName{Op::kBatchNorm, "batchnorm"},
    OpName{Op::kLayerNorm, "layernorm"},
    OpName{Op::kRelu, "relu"},
    OpName{Op::kRelu6, "relu6"},
    OpName{Op::kSigmoid, "sigmoid"},
    OpName{Op::kHardSigmoid, "hardsigmoid"},
    OpName{Op::kHardSwish, "hardswish"},
    OpName{Op::kSilu, "silu"},
    OpName{Op::kGelu, "gelu"},
    OpName{Op::kTanh, "tanh"},
    OpName{Op::kAdd, "add"},
    OpName{Op::kMul, "mul"},
    OpName{Op::kSoftmax, "softmax"},
    OpName{Op::kMaxPool, "maxpool"},
    OpName{Op::kAvgPool, "avgpool"},
    OpName{Op::kGlobalAvgPool, "global_avgpool"},
    OpName{Op::kConcat, "concat"},
    OpName{Op::kChannelShuffle, "channel_shuffle"},
    OpName{Op::kFlatten, "flatten"},
    OpName{Op::kDropout, "dropout"},
};

constexpr std::array<std::pair<const char*, Op>, 22> kOpAliases{{
    {"conv", Op::kConv2d},
    {"convolution", Op::kConv2d},
    {"dense", Op::kLinear},
    {"gemm", Op::kLinear},
    {"fc", Op::kLinear},
    {"matmul", Op::kLinear},
    {"bn", Op::kBatchNorm},
    {"batch_norm", Op::kBatchNorm},
    {"ln", Op::kLayerNorm},
    {"layer_norm", Op::kLayerNorm},
    {"hard_swish", Op::kHardSwish},
    {"hard_sigmoid", Op::kHardSigmoid},
    {"swish", Op::kSilu},
    {"max_pool", Op::kMaxPool},
    {"avg_pool", Op::kAvgPool},
    {"adaptive_avgpool", Op::kGlobalAvgPool},
    {"globalavgpool", Op::kGlobalAvgPool},
    {"global_avg_pool", Op::kGlobalAvgPool},
    {"cat", Op::kConcat},
    {"shuffle", Op::kChannelShuffle},
    {"identity", Op::kDropout},
    {"sum", Op::kAdd},
}};

std::int64_t window_out(std::int64_t in, std::int64_t kernel, std::int64_t stride, std::int64_t pad,
                        std::int64_t pad_end, std::int64_t dilation, bool ceil_mode) {
  const std::int64_t span = in + pad + pad_end - dilation * (kernel - 1) - 1;
  if (span < 0) return 0;
  std::int64_t out = (ceil_mode ? (span + stride - 1) / stride : span / stride) + 1;
  // PyTorch: with ceil_mode the last window must start inside the input or left padding.
  if (ceil_mode && (out - 1) * stride >= in + pad) --out;
  return out;
}

// Floating-point operations per output element of pointwise-like ops (a convention; the
// analytical model treats these ops as memory bound, so only the order of magnitude matters).
double flops_per_element(Op op) {
  switch (op) {
    case Op::kRelu:
    case Op::kRelu6:
    case Op::kAdd:
    case Op::kMul: return 1;
    case Op::kBatchNorm: return 2;
    case Op::kHardSigmoid: return 3;
    case Op::kSigmoid:
    case Op::kTanh:
    case Op::kHardSwish: return 4;
    case Op::kSilu:
    case Op::kSoftmax: return 5;
    case Op::kLayerNorm:
    case Op::kGelu: return 8;
    default: return 0;
  }
}

}  // namespace

std::string to_string(Op op) {
  for (const auto& entry : kOpNames) {
    if (entry.op == op) return entry.name;
  }
  return "unknown";
}

Op op_from_string(std::string_view name) {
  const std::string lower = to_lower(name);
  for (const auto& entry : kOpNames) {
    if (lower == entry.name) return entry.op;
  }
  for (const auto& [alias, op] : kOpAliases) {
    if (lower == alias) return op;
  }
  std::string expected;
  for (const auto& entry : kOpNames) {
    expected += (expected.empty() ? "" : ", ") + std::string(entry.name);
  }
  throw InputError("unknown op '" + std::string(name) + "' (expected one of: " + expected + ")");
}

const std::vector<Op>& all_ops() {
  static const std::vector<Op> ops = [] {
    std::vector<Op> out;
    out.reserve(kOpNames.size());
    for (const auto& entry : kOpNames) out.push_back(entry.op);
    return out;
  }();
  return ops;
}

OpClass op_class(Op op) {
  switch (op) {
    case Op::kConv2d: return OpClass::kConv;
    case Op::kLinear: return OpClass::kGemm;
    case Op::kBatchNorm:
    case Op::kLayerNorm:
    case Op::kSoftmax: return OpClass::kNormalization;
    case Op::kMaxPool:
    case Op::kAvgPool:
    case Op::kGlobalAvgPool: return OpClass::kPool;
    case Op::kConcat:
    case Op::kChannelShuffle: return OpClass::kCopy;
    case Op::kFlatten:
    case Op::kDropout: return OpClass::kNone;
    default: return OpClass::kPointwise;
  }
}

std::string to_string(OpClass value) {
  switch (value) {
    case OpClass::kConv: return "conv";
    case OpClass::kGemm: return "gemm";
    case OpClass::kPointwise: return "pointwise";
    case OpClass::kNormalization: return "normalization";
    case OpClass::kPool: return "pool";
    case OpClass::kCopy: return "copy";
    case OpClass::kNone: return "none";
  }
  return "none";
}

std::string to_string(DType dtype) {
  switch (dtype) {
    case DType::kFp32: return "fp32";
    case DType::kFp16: return "fp16";
    case DType::kBf16: return "bf16";
    case DType::kInt8: return "int8";
  }
  return "fp32";
}

DType dtype_from_string(std::string_view name) {
  const std::string lower = to_lower(name);
  if (lower == "fp32" || lower == "float32" || lower == "float" || lower == "32") {
    return DType::kFp32;
  }
  if (lower == "fp16" || lower == "float16" || lower == "half" || lower == "16") {
    return DType::kFp16;
  }
  if (lower == "bf16" || lower == "bfloat16") return DType::kBf16;
  if (lower == "int8") return DType::kInt8;
  throw InputError("unknown dtype '" + std::string(name) + "' (expected fp32, fp16, bf16 or int8)");
}

std::optional<DType> optional_dtype_from_option(std::string_view text, std::string_view parameter) {
  if (text.empty()) return std::nullopt;
  return dtype_from_option(text, parameter);
}

namespace {

// A name table's parse for a parameter: its InputError becomes a ParameterError naming it.
template <class Parse>
auto parameter_value(Parse parse, std::string_view text, std::string_view parameter,
                     std::string_view expected) {
  try {
    return parse(text);
  } catch (const InputError&) {
    throw ParameterError(std::string(parameter),
                         std::string(expected) + ", got '" + std::string(text) + "'");
  }
}

}  // namespace

DType dtype_from_option(std::string_view text, std::string_view parameter) {
  return parameter_value(dtype_from_string, text, parameter, "expected fp32, fp16, bf16 or int8");
}

int bytes_per_element(DType dtype) {
  switch (dtype) {
    case DType::kFp32: return 4;
    case DType::kFp16:
    case DType::kBf16: return 2;
    case DType::kInt8: return 1;
  }
  return 4;
}

std::string to_string(Pass pass) {
  switch (pass) {
    case Pass::kForward: return "forward";
    case Pass::kTraining: return "training";
    case Pass::kBackwardData: return "backward_data";
    case Pass::kBackwardFilter: return "backward_filter";
  }
  return "forward";
}

Pass pass_from_string(std::string_view name) {
  const std::string lower = to_lower(name);
  if (lower == "forward" || lower == "inference") return Pass::kForward;
  if (lower == "training" || lower == "train") return Pass::kTraining;
  if (lower == "backward_data") return Pass::kBackwardData;
  if (lower == "backward_filter") return Pass::kBackwardFilter;
  throw InputError("unknown pass '" + std::string(name) +
                   "' (expected forward, training, backward_data or backward_filter)");
}

std::string to_string(Layout layout) {
  return layout == Layout::kNhwc ? "nhwc" : "nchw";
}

Layout layout_from_string(std::string_view name) {
  const std::string lower = to_lower(name);
  if (lower == "nchw") return Layout::kNchw;
  if (lower == "nhwc") return Layout::kNhwc;
  throw InputError("unknown layout '" + std::string(name) + "' (expected nchw or nhwc)");
}

Layout layout_from_option(std::string_view text, std::string_view parameter) {
  return parameter_value(layout_from_string, text, parameter, "expected nchw or nhwc");
}

std::string to_string(Activation activation) {
  switch (activation) {
    case Activation::kNone: return "none";
    case Activation::kRelu: return "relu";
    case Activation::kTanh: return "tanh";
    case Activation::kSigmoid: return "sigmoid";
  }
  return "none";
}

Activation activation_from_string(std::string_view name) {
  const std::string lower = to_lower(name);
  if (lower.empty() || lower == "none") return Activation::kNone;
  if (lower == "relu") return Activation::kRelu;
  if (lower == "tanh") return Activation::kTanh;
  if (lower == "sigmoid") return Activation::kSigmoid;
  throw InputError("unknown activation '" + std::string(name) +
                   "' (expected none, relu, tanh or sigmoid)");
}

std::string to_string(Optimizer optimizer) {
  switch (optimizer) {
    case Optimizer::kNone: return "none";
    case Optimizer::kSgd: return "sgd";
    case Optimizer::kMomentum: return "momentum";
    case Optimizer::kAdagrad: return "adagrad";
    case Optimizer::kAdadelta: return "adadelta";
    case Optimizer::kRmsprop: return "rmsprop";
    case Optimizer::kAdam: return "adam";
  }
  return "none";
}

Optimizer optimizer_from_string(std::string_view name) {
  const std::string lower = to_lower(name);
  if (lower.empty() || lower == "none") return Optimizer::kNone;
  if (lower == "sgd" || lower == "gradientdescent") return Optimizer::kSgd;
  if (lower == "momentum") return Optimizer::kMomentum;
  if (lower == "adagrad") return Optimizer::kAdagrad;
  if (lower == "adadelta") return Optimizer::kAdadelta;
  if (lower == "rmsprop") return Optimizer::kRmsprop;
  if (lower == "adam") return Optimizer::kAdam;
  throw InputError("unknown optimizer '" + std::string(name) +
                   "' (expected none, sgd, momentum, adagrad, adadelta, rmsprop or adam)");
}

std::int64_t Layer::h_out() const {
  switch (op_class(op)) {
    case OpClass::kConv:
      return window_out(h_in, kernel_h, stride_h, pad_h, pad_bottom(), dilation_h, false);
    case OpClass::kPool:
      if (op == Op::kGlobalAvgPool) return 1;
      return window_out(h_in, kernel_h, stride_h, pad_h, pad_bottom(), dilation_h, ceil_mode);
    default: return h_in;
  }
}

std::int64_t Layer::w_out() const {
  switch (op_class(op)) {
    case OpClass::kConv:
      return window_out(w_in, kernel_w, stride_w, pad_w, pad_right(), dilation_w, false);
    case OpClass::kPool:
      if (op == Op::kGlobalAvgPool) return 1;
      return window_out(w_in, kernel_w, stride_w, pad_w, pad_right(), dilation_w, ceil_mode);
    default: return w_in;
  }
}

std::int64_t Layer::input_elements() const {
  const std::int64_t one = batch * c_in * h_in * w_in;
  switch (op) {
    case Op::kAdd:
    case Op::kMul: return one * num_inputs;
    case Op::kConcat: return batch * c_out * h_in * w_in;  // all branches together
    default: return one;
  }
}

std::int64_t Layer::output_elements() const {
  switch (op_class(op)) {
    case OpClass::kConv:
    case OpClass::kGemm:
    case OpClass::kCopy: return batch * c_out * h_out() * w_out();
    default: return batch * c_in * h_out() * w_out();
  }
}

std::int64_t Layer::params() const {
  switch (op) {
    case Op::kConv2d: return c_out * (c_in / groups) * kernel_h * kernel_w + (bias ? c_out : 0);
    case Op::kLinear: return c_in * c_out + (bias ? c_out : 0);
    case Op::kBatchNorm:
    case Op::kLayerNorm: return 2 * c_in;
    default: return 0;
  }
}

std::int64_t Layer::macs() const {
  switch (op) {
    case Op::kConv2d:
      return batch * c_out * h_out() * w_out() * (c_in / groups) * kernel_h * kernel_w;
    case Op::kLinear: return batch * h_in * w_in * c_in * c_out;
    default: return 0;
  }
}

double Layer::flops() const {
  switch (op_class(op)) {
    case OpClass::kConv:
    case OpClass::kGemm: return 2.0 * static_cast<double>(macs());
    case OpClass::kPool:
      if (op == Op::kGlobalAvgPool) return static_cast<double>(input_elements());
      return static_cast<double>(output_elements() * kernel_h * kernel_w);
    case OpClass::kCopy:
    case OpClass::kNone: return 0;
    default: return flops_per_element(op) * static_cast<double>(output_elements());
  }
}

double Layer::bytes() const {
  const double bpe = bytes_per_element(dtype);
  if (op_class(op) == OpClass::kNone) return 0;
  // Weights count for conv and GEMM; normalization's per-channel parameters too (negligible).
  return bpe * static_cast<double>(input_elements() + params() + output_elements());
}

void Layer::validate(const std::string& where) const {
  auto require_positive = [&](std::int64_t value, const char* field) {
    if (value <= 0) {
      throw InputError(where + ": field '" + field + "': expected a positive integer, got " +
                       std::to_string(value));
    }
  };
  require_positive(batch, "batch");
  require_positive(c_in, "c_in");
  require_positive(h_in, "h_in");
  require_positive(w_in, "w_in");
  require_positive(c_out, "c_out");
  require_positive(kernel_h, "kernel_h");
  require_positive(kernel_w, "kernel_w");
  require_positive(stride_h, "stride_h");
  require_positive(stride_w, "stride_w");
  require_positive(dilation_h, "dilation_h");
  require_positive(dilation_w, "dilation_w");
  require_positive(groups, "groups");
  // cuDNN describes tensors and windows with 32-bit ints; larger fields are no layer a GPU runs.
  for (const auto& [value, field] : {std::pair{batch, "batch"},
                                     {c_in, "c_in"},
                                     {h_in, "h_in"},
                                     {w_in, "w_in"},
                                     {c_out, "c_out"},
                                     {kernel_h, "kernel_h"},
                                     {kernel_w, "kernel_w"},
                                     {stride_h, "stride_h"},
                                     {stride_w, "stride_w"},
                                     {pad_h, "pad_h"},
                                     {pad_w, "pad_w"},
                                     {pad_h_end, "pad_h_end"},
                                     {pad_w_end, "pad_w_end"},
                                     {dilation_h, "dilation_h"},
                                     {dilation_w, "dilation_w"},
                                     {groups, "groups"}}) {
    if (value > kMaxLayerDim) {
      throw InputError(where + ": field '" + field + "': expected at most " +
                       std::to_string(kMaxLayerDim) + " (cuDNN's 32-bit sizes), got " +
                       std::to_string(value));
    }
  }
  if (pad_h < 0 || pad_w < 0) {
    throw InputError(where + ": field '" + (pad_h < 0 ? "pad_h" : "pad_w") +
                     "': expected a non-negative integer");
  }
  if (pad_h_end < -1 || pad_w_end < -1) {
    throw InputError(where + ": field '" + (pad_h_end < -1 ? "pad_h_end" : "pad_w_end") +
                     "': expected a non-negative integer");
  }
  if (optimizer != Optimizer::kNone && pass != Pass::kTraining) {
    throw InputError(where + ": field 'optimizer': expected none for a " + to_string(pass) +
                     " pass (an optimizer updates weights in a training step), got " +
                     to_string(optimizer));
  }
  const OpClass kind = op_class(op);
  if (kind != OpClass::kConv && kind != OpClass::kPool) {
    // No window: a kernel, stride, padding or dilation given to these ops would be ignored.
    for (const auto& [value, field, expected] :
         {std::tuple{kernel_h, "kernel_h", std::int64_t{1}},
          {kernel_w, "kernel_w", 1},
          {stride_h, "stride_h", 1},
          {stride_w, "stride_w", 1},
          {pad_h, "pad_h", 0},
          {pad_w, "pad_w", 0},
          {dilation_h, "dilation_h", 1},
          {dilation_w, "dilation_w", 1},
          {groups, "groups", op == Op::kChannelShuffle ? groups : 1}}) {
      if (value != expected) {
        throw InputError(where + ": field '" + field + "': expected " + std::to_string(expected) +
                         " for " + to_string(op) + " (it has no window), got " +
                         std::to_string(value));
      }
    }
    if (std::max(pad_h_end, pad_w_end) > 0) {
      throw InputError(where + ": field '" + (pad_h_end > 0 ? "pad_h_end" : "pad_w_end") +
                       "': expected 0 for " + to_string(op) + " (it has no window)");
    }
  }
  if ((kind == OpClass::kPointwise || kind == OpClass::kNormalization || kind == OpClass::kPool ||
       kind == OpClass::kNone) &&
      c_out != c_in) {
    // These ops keep the channel count; a different c_out would be silently ignored.
    throw InputError(where + ": field 'c_out': expected c_in (" + std::to_string(c_in) + ") for " +
                     to_string(op) + ", got " + std::to_string(c_out));
  }
  if (op == Op::kConv2d && (c_in % groups != 0 || c_out % groups != 0)) {
    throw InputError(where + ": field 'groups': expected a divisor of c_in (" +
                     std::to_string(c_in) + ") and c_out (" + std::to_string(c_out) + "), got " +
                     std::to_string(groups));
  }
  if (h_out() <= 0 || w_out() <= 0) {
    throw InputError(where + ": the kernel (" + std::to_string(kernel_h) + "x" +
                     std::to_string(kernel_w) + ") does not fit the padded input (" +
                     std::to_string(h_in) + "x" + std::to_string(w_in) +
                     "); expected an output of at least 1x1");
  }
  // Every field fits in 32 bits, but their products need not fit in 64: count in double first
  // (all factors are at least 1, so no partial product of the int64 counts exceeds these).
  const auto d = [](std::int64_t v) { return static_cast<double>(v); };
  const auto count_text = [](double v) {
    std::array<char, 32> text{};
    std::snprintf(text.data(), text.size(), "%.3g", v);
    return std::string(text.data());
  };
  const double inputs = op == Op::kConcat ? d(batch) * d(c_out) * d(h_in) * d(w_in)
                                          : d(batch) * d(c_in) * d(h_in) * d(w_in) * num_inputs;
  const double outputs = d(batch) * d(std::max(c_in, c_out)) * d(h_out()) * d(w_out());
  // params() and macs() of this op (a pool's window reads, an elementwise op's outputs), so an
  // op is held to its own counts: a 2e7-channel softmax has no 4e14-element weight tensor.
  double weights = 0.0;
  double work = outputs;
  switch (op) {
    case Op::kConv2d: {
      const double window = d(c_in / groups) * d(kernel_h) * d(kernel_w);  // groups divides c_in
      weights = d(c_out) * window + d(c_out);
      work = d(batch) * d(c_out) * d(h_out()) * d(w_out()) * window;
      break;
    }
    case Op::kLinear:
      weights = d(c_in) * d(c_out) + d(c_out);
      work = d(batch) * d(h_in) * d(w_in) * d(c_in) * d(c_out);
      break;
    case Op::kBatchNorm:
    case Op::kLayerNorm: weights = 2.0 * d(c_in); break;
    default:
      if (op_class(op) == OpClass::kPool) work = outputs * d(kernel_h) * d(kernel_w);
      break;
  }
  for (const auto& [count, what] :
       {std::pair{inputs, "input elements"}, {outputs, "output elements"}, {weights, "weights"}}) {
    if (count > kMaxLayerElements) {
      throw InputError(where + ": the layer's " + what + " (" + count_text(count) + ") exceed " +
                       count_text(kMaxLayerElements) +
                       "; expected a tensor a GPU's memory can hold");
    }
  }
  if (work > kMaxLayerMacs) {
    throw InputError(where + ": the layer's multiply-adds (up to " + count_text(work) +
                     ") exceed " + count_text(kMaxLayerMacs) +
                     "; expected sizes whose counts fit in 64-bit integers");
  }
}

const std::vector<std::string>& layer_csv_columns() {
  static const std::vector<std::string> columns{
      "op",         "batch",      "c_in",     "h_in",     "w_in",  "c_out",
      "kernel_h",   "kernel_w",   "stride_h", "stride_w", "pad_h", "pad_w",
      "dilation_h", "dilation_w", "groups",   "bias",     "dtype", "pass"};
  return columns;
}

}  // namespace cnnperf
