// SPDX-License-Identifier: Apache-2.0
// NetBuilder: appends layers to a Network while tracking the current activation shape, so
// zoo definitions state only what a framework's module states (channels, kernel, stride...)
// and every spatial size is computed. Branches: take shape(), build a branch, set_shape().
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "cnnperf/model/layer.hpp"
#include "cnnperf/model/network.hpp"

namespace cnnperf::detail {

/// Activation shape of one sample (channels, height, width).
struct Shape {
  std::int64_t c = 0;
  std::int64_t h = 0;
  std::int64_t w = 0;
  friend bool operator==(const Shape&, const Shape&) = default;
};

[[nodiscard]] std::string to_string(const Shape& shape);

/// Options of one convolution beyond channels and kernel.
struct ConvArgs {
  std::int64_t stride_h = 1;
  std::int64_t stride_w = 1;
  std::int64_t pad_h = 0;
  std::int64_t pad_w = 0;
  std::int64_t groups = 1;
  bool bias = false;
  std::int64_t dilation = 1;
};

class NetBuilder {
 public:
  /// Starts a network of `name` whose input is 3 x input_h x input_w, batch and dtype from
  /// `options` (applied to every layer).
  NetBuilder(std::string name, std::int64_t input_h, std::int64_t input_w,
             const NetworkOptions& options);

  [[nodiscard]] Shape shape() const { return shape_; }
  /// Restores a saved shape (start of a branch, or the identity path of a residual).
  void set_shape(Shape shape) { shape_ = shape; }

  /// Square-kernel convolution with symmetric stride/padding.
  void conv(const std::string& name, std::int64_t c_out, std::int64_t kernel,
            std::int64_t stride = 1, std::int64_t pad = 0, std::int64_t groups = 1,
            bool bias = false);
  /// General convolution (rectangular kernels such as Inception's 1x7 / 7x1).
  void conv(const std::string& name, std::int64_t c_out, std::int64_t kernel_h,
            std::int64_t kernel_w, const ConvArgs& args);
  void batchnorm(const std::string& name);
  /// Any pointwise activation (relu, relu6, sigmoid, hardsigmoid, hardswish, silu, ...).
  void activation(const std::string& name, Op op);
  void maxpool(const std::string& name, std::int64_t kernel, std::int64_t stride,
               std::int64_t pad = 0, bool ceil_mode = false);
  void avgpool(const std::string& name, std::int64_t kernel, std::int64_t stride,
               std::int64_t pad = 0, bool ceil_mode = false);
  void global_avgpool(const std::string& name);
  /// AdaptiveAvgPool2d((out_h, out_w)) as a fixed-window avgpool with the same output size.
  /// Throws InputError when the feature map is smaller than the target (it would upsample).
  void adaptive_avgpool(const std::string& name, std::int64_t out_h, std::int64_t out_w);
  /// torch.flatten(x, 1): a view; the shape becomes (c*h*w, 1, 1).
  void flatten(const std::string& name);
  void dropout(const std::string& name);
  void linear(const std::string& name, std::int64_t out_features, bool bias = true);
  /// Residual sum of the current tensor and one of `other` shape (must be equal).
  void add(const std::string& name, Shape other);
  /// An elementwise op of the current tensor and a Python scalar (x.mul(0.), 0 + x): one
  /// tensor read, one written, one kernel.
  void scalar_op(const std::string& name, Op op);
  /// Squeeze-excite scaling: the current tensor times a per-channel scale (num_inputs 2).
  void mul(const std::string& name);
  /// Concatenation along channels of `inputs` (same h, w); the shape becomes their sum.
  void concat(const std::string& name, const std::vector<Shape>& inputs);
  void channel_shuffle(const std::string& name, std::int64_t groups);

  /// Conv (+ batch norm) (+ activation) under `prefix` with suffixes ".0", ".1", ".2", as
  /// torchvision's Conv2dNormActivation (padding (kernel-1)/2); nullopt `act`: no activation.
  void conv_bn_act(const std::string& prefix, std::int64_t c_out, std::int64_t kernel,
                   std::int64_t stride, std::int64_t groups, std::optional<Op> act);

  /// The finished network (the builder is left empty).
  [[nodiscard]] Network finish();

 private:
  Layer start(const std::string& name, Op op) const;
  void push(Layer layer);

  Network network_;
  Shape shape_;
  DType dtype_;
};

}  // namespace cnnperf::detail
