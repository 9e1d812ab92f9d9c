// SPDX-License-Identifier: Apache-2.0
// NetBuilder: shape-tracking layer appender used by the zoo definitions.
#include "net_builder.hpp"

#include <utility>

#include "cnnperf/common/error.hpp"

namespace cnnperf::detail {

std::string to_string(const Shape& shape) {
  return std::to_string(shape.c) + "x" + std::to_string(shape.h) + "x" + std::to_string(shape.w);
}

NetBuilder::NetBuilder(std::string name, std::int64_t input_h, std::int64_t input_w,
                       const NetworkOptions& options)
    : shape_{3, input_h, input_w}, dtype_(options.dtype) {
  network_.name = std::move(name);
  network_.source = "zoo";
  network_.batch = options.batch;
  network_.input_c = 3;
  network_.input_h = input_h;
  network_.input_w = input_w;
}

Layer NetBuilder::start(const std::string& name, Op op) const {
  Layer layer;
  layer.name = name;
  layer.op = op;
  layer.batch = network_.batch;
  layer.c_in = shape_.c;
  layer.h_in = shape_.h;
  layer.w_in = shape_.w;
  layer.c_out = shape_.c;  // pointwise, pool and copy ops keep the channel count
  layer.dtype = dtype_;
  return layer;
}

void NetBuilder::push(Layer layer) {
  // validate() names the layer; an input too small for the network surfaces here as the
  // first window that does not fit.
  layer.validate(network_.name + " at " + std::to_string(network_.input_h) + "x" +
                 std::to_string(network_.input_w) + ": layer '" + layer.name + "'");
  switch (layer.op) {
    case Op::kFlatten: shape_ = {layer.c_in * layer.h_in * layer.w_in, 1, 1}; break;
    case Op::kLinear: shape_ = {layer.c_out, 1, 1}; break;
    default: shape_ = {layer.c_out, layer.h_out(), layer.w_out()}; break;
  }
  network_.layers.push_back(std::move(layer));
}

void NetBuilder::conv(const std::string& name, std::int64_t c_out, std::int64_t kernel,
                      std::int64_t stride, std::int64_t pad, std::int64_t groups, bool bias) {
  conv(name, c_out, kernel, kernel, ConvArgs{stride, stride, pad, pad, groups, bias, 1});
}

void NetBuilder::conv(const std::string& name, std::int64_t c_out, std::int64_t kernel_h,
                      std::int64_t kernel_w, const ConvArgs& args) {
  Layer layer = start(name, Op::kConv2d);
  layer.c_out = c_out;
  layer.kernel_h = kernel_h;
  layer.kernel_w = kernel_w;
  layer.stride_h = args.stride_h;
  layer.stride_w = args.stride_w;
  layer.pad_h = args.pad_h;
  layer.pad_w = args.pad_w;
  layer.dilation_h = args.dilation;
  layer.dilation_w = args.dilation;
  layer.groups = args.groups;
  layer.bias = args.bias;
  push(std::move(layer));
}

void NetBuilder::batchnorm(const std::string& name) {
  push(start(name, Op::kBatchNorm));
}

void NetBuilder::activation(const std::string& name, Op op) {
  push(start(name, op));
}

void NetBuilder::maxpool(const std::string& name, std::int64_t kernel, std::int64_t stride,
                         std::int64_t pad, bool ceil_mode) {
  Layer layer = start(name, Op::kMaxPool);
  layer.kernel_h = layer.kernel_w = kernel;
  layer.stride_h = layer.stride_w = stride;
  layer.pad_h = layer.pad_w = pad;
  layer.ceil_mode = ceil_mode;
  push(std::move(layer));
}

void NetBuilder::avgpool(const std::string& name, std::int64_t kernel, std::int64_t stride,
                         std::int64_t pad, bool ceil_mode) {
  Layer layer = start(name, Op::kAvgPool);
  layer.kernel_h = layer.kernel_w = kernel;
  layer.stride_h = layer.stride_w = stride;
  layer.pad_h = layer.pad_w = pad;
  layer.ceil_mode = ceil_mode;
  push(std::move(layer));
}

void NetBuilder::global_avgpool(const std::string& name) {
  Layer layer = start(name, Op::kGlobalAvgPool);
  // The window covers the whole map; recorded so printers show what the op reads.
  layer.kernel_h = shape_.h;
  layer.kernel_w = shape_.w;
  push(std::move(layer));
}

void NetBuilder::adaptive_avgpool(const std::string& name, std::int64_t out_h, std::int64_t out_w) {
  if (shape_.h < out_h || shape_.w < out_w) {
    throw InputError(network_.name + " at " + std::to_string(network_.input_h) + "x" +
                     std::to_string(network_.input_w) + ": layer '" + name +
                     "': the feature map is " + std::to_string(shape_.h) + "x" +
                     std::to_string(shape_.w) + "; expected at least " + std::to_string(out_h) +
                     "x" + std::to_string(out_w) + " (a larger input size)");
  }
  // PyTorch's adaptive windows are equal when the size divides; otherwise this fixed window
  // (stride floor(in/out), kernel covering the rest) gives the same output size.
  Layer layer = start(name, Op::kAvgPool);
  layer.stride_h = shape_.h / out_h;
  layer.stride_w = shape_.w / out_w;
  layer.kernel_h = shape_.h - (out_h - 1) * layer.stride_h;
  layer.kernel_w = shape_.w - (out_w - 1) * layer.stride_w;
  push(std::move(layer));
}

void NetBuilder::flatten(const std::string& name) {
  push(start(name, Op::kFlatten));
}

void NetBuilder::dropout(const std::string& name) {
  push(start(name, Op::kDropout));
}

void NetBuilder::linear(const std::string& name, std::int64_t out_features, bool bias) {
  if (shape_.h != 1 || shape_.w != 1) {
    throw Error(network_.name + ": layer '" + name + "': linear expects a flattened input, got " +
                to_string(shape_));
  }
  Layer layer = start(name, Op::kLinear);
  layer.c_out = out_features;
  layer.bias = bias;
  push(std::move(layer));
}

void NetBuilder::add(const std::string& name, Shape other) {
  if (!(other == shape_)) {
    // A definition bug, not bad user input: both operands are computed by the builder.
    throw Error(network_.name + ": layer '" + name + "': residual shapes differ (" +
                to_string(shape_) + " vs " + to_string(other) + ")");
  }
  Layer layer = start(name, Op::kAdd);
  layer.num_inputs = 2;
  push(std::move(layer));
}

void NetBuilder::scalar_op(const std::string& name, Op op) {
  Layer layer = start(name, op);
  layer.num_inputs = 1;
  push(std::move(layer));
}

void NetBuilder::mul(const std::string& name) {
  Layer layer = start(name, Op::kMul);
  layer.num_inputs = 2;
  push(std::move(layer));
}

void NetBuilder::concat(const std::string& name, const std::vector<Shape>& inputs) {
  if (inputs.empty()) throw Error(network_.name + ": layer '" + name + "': concat of nothing");
  std::int64_t channels = 0;
  for (const Shape& input : inputs) {
    if (input.h != inputs.front().h || input.w != inputs.front().w) {
      throw InputError(network_.name + " at " + std::to_string(network_.input_h) + "x" +
                       std::to_string(network_.input_w) + ": layer '" + name +
                       "': branch sizes differ (" + to_string(inputs.front()) + " vs " +
                       to_string(input) + "); expected an input size the branches agree on");
    }
    channels += input.c;
  }
  shape_ = {inputs.front().c, inputs.front().h, inputs.front().w};
  Layer layer = start(name, Op::kConcat);
  layer.c_in = channels;  // every input channel is read once
  layer.c_out = channels;
  layer.num_inputs = static_cast<int>(inputs.size());
  push(std::move(layer));
}

void NetBuilder::channel_shuffle(const std::string& name, std::int64_t groups) {
  Layer layer = start(name, Op::kChannelShuffle);
  layer.groups = groups;
  push(std::move(layer));
}

void NetBuilder::conv_bn_act(const std::string& prefix, std::int64_t c_out, std::int64_t kernel,
                             std::int64_t stride, std::int64_t groups, std::optional<Op> act) {
  conv(prefix + ".0", c_out, kernel, stride, (kernel - 1) / 2, groups, false);
  batchnorm(prefix + ".1");
  if (act) activation(prefix + ".2", *act);
}

Network NetBuilder::finish() {
  return std::move(network_);
}

}  // namespace cnnperf::detail
