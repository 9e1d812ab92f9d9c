// SPDX-License-Identifier: Apache-2.0
// The layer model: one operator of a CNN with its shape, in the canonical layer schema
// of DESIGN §3 (columns of `predict --layers` and of datasets/).
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace cnnperf {

/// Operators cnnperf knows. Names (to_string) are the `op` column values.
enum class Op {
  kConv2d,     ///< 2-D convolution (groups and dilation allowed; depthwise = groups == c_in)
  kLinear,     ///< fully connected: batch = rows, c_in = in features, c_out = out features
  kBatchNorm,  ///< inference batch norm (scale + shift per channel)
  kLayerNorm,
  kRelu,
  kRelu6,
  kSigmoid,
  kHardSigmoid,
  kHardSwish,
  kSilu,  ///< x * sigmoid(x) (Swish)
  kGelu,
  kTanh,
  kAdd,  ///< elementwise sum of two tensors of the input shape
  kMul,  ///< elementwise product (broadcast of a per-channel scale counts as a full read)
  kSoftmax,
  kMaxPool,
  kAvgPool,
  kGlobalAvgPool,   ///< adaptive average pool to 1x1
  kConcat,          ///< c_out = sum of the inputs' channels; a copy of all of them
  kChannelShuffle,  ///< ShuffleNet's transpose: a copy
  kFlatten,         ///< view: no kernel, no bytes
  kDropout,         ///< identity at inference
};

[[nodiscard]] std::string to_string(Op op);
/// Accepts the canonical names and common aliases (e.g. "conv", "dense", "gemm", "bn", "ln",
/// "relu", "hardswish", "avg_pool", "adaptive_avgpool"). Throws InputError for unknown names.
[[nodiscard]] Op op_from_string(std::string_view name);
/// All operators, in enum order.
[[nodiscard]] const std::vector<Op>& all_ops();

/// Coarse class used by the analytical model.
enum class OpClass { kConv, kGemm, kPointwise, kNormalization, kPool, kCopy, kNone };
[[nodiscard]] OpClass op_class(Op op);
[[nodiscard]] std::string to_string(OpClass op_class);

/// Element types. bf16 and int8 run on tensor cores only where the GPU database has their
/// rates (tensor_bf16_tflops, tensor_int8_tops; gpu_supports_precision).
enum class DType { kFp32, kFp16, kBf16, kInt8 };
[[nodiscard]] std::string to_string(DType dtype);
/// Accepts fp32|float32|float|32, fp16|float16|half|16, bf16|bfloat16 and int8. Throws
/// InputError otherwise.
[[nodiscard]] DType dtype_from_string(std::string_view name);
/// dtype_from_string for a parameter: throws ParameterError naming `parameter` (e.g.
/// "precision").
[[nodiscard]] DType dtype_from_option(std::string_view text, std::string_view parameter);
/// The same for an optional one: empty text (not given) is nullopt, which lets a file's own
/// element type decide.
[[nodiscard]] std::optional<DType> optional_dtype_from_option(std::string_view text,
                                                              std::string_view parameter);
[[nodiscard]] int bytes_per_element(DType dtype);

/// Which pass a row measures: the forward pass, a whole training step (forward + backward
/// [+ update]), or one of the two backward convolutions.
enum class Pass { kForward, kTraining, kBackwardData, kBackwardFilter };
[[nodiscard]] std::string to_string(Pass pass);
[[nodiscard]] Pass pass_from_string(std::string_view name);

/// Memory layout of the activations a layer is called with: NCHW (PyTorch's and cuDNN's
/// default) or NHWC (channels-last). Layer CSV column `layout`, as `profile` writes it.
enum class Layout { kNchw, kNhwc };
[[nodiscard]] std::string to_string(Layout layout);
/// Accepts nchw or nhwc (any case). Throws InputError otherwise.
[[nodiscard]] Layout layout_from_string(std::string_view name);
/// layout_from_string for a parameter: throws ParameterError naming `parameter` (e.g. "layout").
[[nodiscard]] Layout layout_from_option(std::string_view text, std::string_view parameter);

/// An activation timed together with the layer (MLPredict timed TensorFlow's conv/dense layer
/// with its bias and activation as one graph). Layer CSV column `activation`.
enum class Activation { kNone, kRelu, kTanh, kSigmoid };
[[nodiscard]] std::string to_string(Activation activation);
/// Accepts none (or empty), relu, tanh, sigmoid. Throws InputError otherwise.
[[nodiscard]] Activation activation_from_string(std::string_view name);

/// The weight update a training-step row includes (`pass` training). Layer CSV column
/// `optimizer`; TensorFlow's names are accepted (GradientDescent = sgd, RMSProp = rmsprop).
enum class Optimizer { kNone, kSgd, kMomentum, kAdagrad, kAdadelta, kRmsprop, kAdam };
[[nodiscard]] std::string to_string(Optimizer optimizer);
/// Accepts none (or empty), sgd|gradientdescent, momentum, adagrad, adadelta, rmsprop, adam
/// (any case). Throws InputError otherwise.
[[nodiscard]] Optimizer optimizer_from_string(std::string_view name);

/// One operator with its shape. Sizes are element counts; defaults follow DESIGN §3
/// (1 for sizes, strides, dilation and groups; 0 for padding and bias; fp32; forward).
struct Layer {
  std::string name;  ///< e.g. "layer1.0.conv1"; empty for CSV rows
  Op op = Op::kConv2d;
  std::int64_t batch = 1;
  std::int64_t c_in = 1;
  std::int64_t h_in = 1;
  std::int64_t w_in = 1;
  std::int64_t c_out = 1;  ///< for pointwise/pool ops equal to c_in (set by normalize())
  std::int64_t kernel_h = 1;
  std::int64_t kernel_w = 1;
  std::int64_t stride_h = 1;
  std::int64_t stride_w = 1;
  std::int64_t pad_h = 0;
  std::int64_t pad_w = 0;
  std::int64_t dilation_h = 1;
  std::int64_t dilation_w = 1;
  std::int64_t groups = 1;
  bool bias = false;
  bool ceil_mode = false;  ///< pooling output rounding (torchvision uses it in a few nets)
  /// Bottom/right padding when it differs from pad_h/pad_w (TensorFlow SAME with an even
  /// kernel, ONNX pads); -1: the same as pad_h/pad_w.
  std::int64_t pad_h_end = -1;
  std::int64_t pad_w_end = -1;
  DType dtype = DType::kFp32;
  /// An fp32 convolution may run on TF32 tensor cores (compute capability 8.0 and later), as
  /// PyTorch does by default (torch.backends.cudnn.allow_tf32). Layer CSV rows: false.
  bool allow_tf32 = false;
  Layout layout = Layout::kNchw;
  Pass pass = Pass::kForward;
  /// Activation timed with the layer (none: the layer alone, as PyTorch per-op timings are).
  Activation activation = Activation::kNone;
  /// Weight update of a training step (none: no update, or not recorded).
  Optimizer optimizer = Optimizer::kNone;
  /// Number of input tensors read (2 for add/mul, the branch count for concat).
  int num_inputs = 1;

  /// Bottom and right padding, pixels (pad_h/pad_w unless pad_h_end/pad_w_end say otherwise).
  [[nodiscard]] std::int64_t pad_bottom() const { return pad_h_end < 0 ? pad_h : pad_h_end; }
  [[nodiscard]] std::int64_t pad_right() const { return pad_w_end < 0 ? pad_w : pad_w_end; }
  /// Output height/width from the input, kernel, stride, padding, dilation (and ceil_mode).
  [[nodiscard]] std::int64_t h_out() const;
  [[nodiscard]] std::int64_t w_out() const;
  /// Elements of the input tensor (all inputs summed for concat) and of the output tensor.
  [[nodiscard]] std::int64_t input_elements() const;
  [[nodiscard]] std::int64_t output_elements() const;
  /// Learnable parameters (weights + bias; batch norm: 2 per channel).
  [[nodiscard]] std::int64_t params() const;
  /// Multiply-accumulates of the forward pass (conv and linear); 0 for other ops.
  [[nodiscard]] std::int64_t macs() const;
  /// Floating-point operations of the forward pass, a multiply-add counted as 2.
  [[nodiscard]] double flops() const;
  /// Compulsory DRAM bytes of the forward pass: inputs + weights read once, output written once.
  [[nodiscard]] double bytes() const;

  /// Throws InputError("<where>: field '<f>': expected ...") for non-positive sizes,
  /// negative padding, channels not divisible by groups, or an empty output.
  void validate(const std::string& where) const;
};

/// The integer shape members of a Layer by field name, in the canonical column order (the
/// layer JSON writer, profile sweeps).
struct LayerIntField {
  const char* name;
  std::int64_t Layer::*member;
};
inline constexpr std::array kLayerIntFields{
    LayerIntField{"batch", &Layer::batch},
    LayerIntField{"c_in", &Layer::c_in},
    LayerIntField{"h_in", &Layer::h_in},
    LayerIntField{"w_in", &Layer::w_in},
    LayerIntField{"c_out", &Layer::c_out},
    LayerIntField{"kernel_h", &Layer::kernel_h},
    LayerIntField{"kernel_w", &Layer::kernel_w},
    LayerIntField{"stride_h", &Layer::stride_h},
    LayerIntField{"stride_w", &Layer::stride_w},
    LayerIntField{"pad_h", &Layer::pad_h},
    LayerIntField{"pad_w", &Layer::pad_w},
    LayerIntField{"dilation_h", &Layer::dilation_h},
    LayerIntField{"dilation_w", &Layer::dilation_w},
    LayerIntField{"groups", &Layer::groups},
};

/// Layer::validate's limits: a size field (cuDNN's int), a tensor's elements (2^48, beyond any
/// GPU's memory) and a layer's multiply-adds (2^62, so that the int64 counts cannot overflow).
inline constexpr std::int64_t kMaxLayerDim = 2147483647;
inline constexpr double kMaxLayerElements = 281474976710656.0;
inline constexpr double kMaxLayerMacs = 4611686018427387904.0;

/// Names of the canonical layer CSV columns, in DESIGN order.
[[nodiscard]] const std::vector<std::string>& layer_csv_columns();

}  // namespace cnnperf
