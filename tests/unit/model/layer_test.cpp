// SPDX-License-Identifier: Apache-2.0
#include <gtest/gtest.h>

#include "../input_error_of.hpp"
#include "cnnperf/common/error.hpp"
#include "cnnperf/model/layer.hpp"
#include "cnnperf/model/layer_io.hpp"

namespace cnnperf {
namespace {

Layer conv(std::int64_t c_in, std::int64_t hw, std::int64_t c_out, std::int64_t k,
           std::int64_t stride, std::int64_t pad, std::int64_t groups = 1) {
  Layer l;
  l.op = Op::kConv2d;
  l.c_in = c_in;
  l.h_in = l.w_in = hw;
  l.c_out = c_out;
  l.kernel_h = l.kernel_w = k;
  l.stride_h = l.stride_w = stride;
  l.pad_h = l.pad_w = pad;
  l.groups = groups;
  return l;
}

TEST(Layer, ResNetStemCounts) {
  const Layer stem = conv(3, 224, 64, 7, 2, 3);
  EXPECT_EQ(stem.h_out(), 112);
  EXPECT_EQ(stem.params(), 64 * 3 * 7 * 7);
  EXPECT_EQ(stem.macs(), 118013952);  // 64*112*112*3*7*7
  EXPECT_DOUBLE_EQ(stem.flops(), 2.0 * 118013952);
  EXPECT_DOUBLE_EQ(stem.bytes(), 4.0 * (3 * 224 * 224 + 64 * 3 * 49 + 64 * 112 * 112));
}

TEST(Layer, DepthwiseAndDilation) {
  Layer dw = conv(32, 112, 32, 3, 1, 1, 32);
  EXPECT_EQ(dw.params(), 32 * 9);
  EXPECT_EQ(dw.macs(), 32LL * 112 * 112 * 9);
  Layer dil = conv(16, 32, 16, 3, 1, 2);
  dil.dilation_h = dil.dilation_w = 2;
  EXPECT_EQ(dil.h_out(), 32);
}

TEST(Layer, PoolCeilModeMatchesPyTorch) {
  Layer pool;
  pool.op = Op::kMaxPool;
  pool.c_in = pool.c_out = 96;
  pool.h_in = pool.w_in = 111;
  pool.kernel_h = pool.kernel_w = 3;
  pool.stride_h = pool.stride_w = 2;
  pool.ceil_mode = true;
  EXPECT_EQ(pool.h_out(), 55);  // odd input: both roundings agree
  pool.h_in = pool.w_in = 112;
  EXPECT_EQ(pool.h_out(), 56);
  pool.ceil_mode = false;
  EXPECT_EQ(pool.h_out(), 55);
}

TEST(Layer, LinearAndPointwise) {
  Layer fc;
  fc.op = Op::kLinear;
  fc.batch = 8;
  fc.c_in = 2048;
  fc.c_out = 1000;
  fc.bias = true;
  EXPECT_EQ(fc.params(), 2048 * 1000 + 1000);
  EXPECT_EQ(fc.macs(), 8LL * 2048 * 1000);
  Layer add;
  add.op = Op::kAdd;
  add.num_inputs = 2;
  add.c_in = add.c_out = 64;
  add.h_in = add.w_in = 56;
  EXPECT_EQ(add.input_elements(), 2 * 64 * 56 * 56);
  EXPECT_EQ(add.output_elements(), 64 * 56 * 56);
  EXPECT_EQ(add.params(), 0);
}

TEST(Layer, ValidateNamesTheField) {
  Layer bad = conv(30, 8, 64, 3, 1, 1, 4);
  try {
    bad.validate("x.csv:3");
    FAIL();
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("x.csv:3: field 'groups'"), std::string::npos) << e.what();
  }
  Layer big = conv(3, 4, 8, 7, 1, 0);
  EXPECT_THROW(big.validate("y"), InputError);
}

// Each field was checked alone; their products overflowed int64 into negative FLOPs.
TEST(Layer, ValidateRejectsSizesWhoseCountsOverflow) {
  Layer wide = conv(64, 56, 64, 3, 1, 1);
  wide.batch = std::int64_t{1} << 31;
  try {
    wide.validate("w.csv:2");
    FAIL();
  } catch (const InputError& e) {
    EXPECT_EQ(std::string(e.what()),
              "w.csv:2: field 'batch': expected at most 2147483647 (cuDNN's 32-bit sizes), got "
              "2147483648");
  }
  // Every field within 32 bits, the tensor far beyond any memory.
  Layer relu;
  relu.op = Op::kRelu;
  relu.batch = relu.c_in = relu.h_in = relu.w_in = relu.c_out = 1000000;
  try {
    relu.validate("r.csv:2");
    FAIL();
  } catch (const InputError& e) {
    EXPECT_EQ(std::string(e.what()),
              "r.csv:2: the layer's input elements (1e+24) exceed 2.81e+14; expected a tensor a "
              "GPU's memory can hold");
  }
  // Tensors that fit, multiply-adds that would not fit in int64.
  Layer fc;
  fc.op = Op::kLinear;
  fc.batch = 1 << 17;
  fc.c_in = fc.c_out = 1 << 23;
  try {
    fc.validate("f");
    FAIL();
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("f: the layer's multiply-adds (up to 9.22e+18) exceed"),
              std::string::npos)
        << e.what();
  }
  // Each op is held to its own weights and work: 2e7 channels are a 2e7-element tensor for a
  // softmax or a pool, and 1.8e8 weights for a depthwise 3x3 conv, but 3.6e15 for a dense one.
  constexpr std::int64_t kChannels = 20000000;
  for (const Op op : {Op::kSoftmax, Op::kRelu, Op::kLayerNorm, Op::kBatchNorm, Op::kMaxPool}) {
    Layer wide_op;
    wide_op.op = op;
    wide_op.c_in = wide_op.c_out = kChannels;
    EXPECT_NO_THROW(wide_op.validate("s")) << to_string(op);
  }
  const Layer depthwise = conv(kChannels, 1, kChannels, 3, 1, 1, kChannels);
  EXPECT_NO_THROW(depthwise.validate("d"));
  EXPECT_DOUBLE_EQ(static_cast<double>(depthwise.params()), 9.0 * kChannels);
  const Layer dense = conv(kChannels, 1, kChannels, 3, 1, 1);
  try {
    dense.validate("c");
    FAIL();
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("c: the layer's weights (3.6e+15) exceed"),
              std::string::npos)
        << e.what();
  }
  // The largest layers of real networks stay well inside the limits.
  Layer big = conv(64, 1024, 64, 7, 1, 3);
  big.batch = 4096;
  EXPECT_NO_THROW(big.validate("b"));
  EXPECT_GT(big.flops(), 0.0);
}

// Pointwise, normalization and pool ops keep the channel count: another c_out was ignored.
TEST(Layer, ChannelKeepingOpsRejectAnotherCOut) {
  const auto t = parse_layers_csv("op,c_in,c_out\nrelu,64,64\nrelu,64,\n", "ok.csv");
  EXPECT_EQ(t.layers[1].c_out, 64);
  try {
    (void)parse_layers_csv("op,c_in,h_in,w_in,c_out,kernel_h,kernel_w\nmaxpool,64,8,8,32,2,2\n",
                           "pool.csv");
    FAIL();
  } catch (const InputError& e) {
    EXPECT_EQ(std::string(e.what()),
              "pool.csv:2: field 'c_out': expected c_in (64) for maxpool, got 32");
  }
}

// A square shorthand beside its _h/_w field, and a window on an op without one, were read
// silently (the _h field won; the window was ignored).
TEST(Layer, ContradictingOrIgnoredWindowFieldsAreInputErrors) {
  auto error_of = [](const std::string& csv) {
    return test::input_error_of([&] { (void)parse_layers_csv(csv, "w.csv"); });
  };
  EXPECT_EQ(error_of("op,c_in,h_in,w_in,c_out,kernel,kernel_h\nconv2d,3,8,8,4,3,5\n"),
            "w.csv:2: field 'kernel_h': 5 contradicts kernel 3; give kernel or the _h/_w pair");
  EXPECT_EQ(error_of("op,c_in,h_in,w_in,c_out,kernel,kernel_h\nconv2d,3,8,8,4,3,3\n"), "no error");
  EXPECT_EQ(error_of("op,c_in,c_out,kernel_h\nlinear,3,4,3\n"),
            "w.csv:2: field 'kernel_h': expected 1 for linear (it has no window), got 3");
  EXPECT_EQ(error_of("op,c_in,pad_h\nbatchnorm,3,1\n"),
            "w.csv:2: field 'pad_h': expected 0 for batchnorm (it has no window), got 1");
  EXPECT_EQ(error_of("op,c_in,c_out,groups\nadd,4,4,2\n"),
            "w.csv:2: field 'groups': expected 1 for add (it has no window), got 2");
  EXPECT_EQ(error_of("op,c_in,c_out,groups\nchannel_shuffle,4,4,2\n"), "no error");
  EXPECT_EQ(error_of("op,c_in,h_in,w_in,c_out\nflatten,3,4,4,5\n"),
            "w.csv:2: field 'c_out': expected c_in (3) for flatten, got 5");
}

TEST(Layer, OpNamesRoundTripAndAliases) {
  for (const Op op : all_ops()) EXPECT_EQ(op_from_string(to_string(op)), op);
  EXPECT_EQ(op_from_string("Dense"), Op::kLinear);
  EXPECT_EQ(op_from_string("ln"), Op::kLayerNorm);
  EXPECT_THROW((void)op_from_string("transformer"), InputError);
}

// The columns `nets show` derives from a row (h_out ... bytes) travel with the row into
// predict's output: one left stale by an edit of the shape names itself. A view's h_out is its
// network's (flatten's 1), so it is checked on windowed ops only.
TEST(LayerCsv, AStaleDerivedColumnIsAnInputError) {
  auto error_of = [](const std::string& csv) {
    return test::input_error_of([&] { (void)parse_layers_csv(csv, "d.csv"); });
  };
  const std::string header = "op,batch,c_in,h_in,w_in,c_out,kernel_h,stride_h,pad_h,";
  EXPECT_EQ(error_of(header + "h_out,flops\nconv2d,8,3,224,224,64,7,2,3,112,1888223232\n"),
            "no error");
  EXPECT_EQ(error_of(header + "h_out\nconv2d,8,3,4,4,64,7,2,3,112\n"),
            "d.csv:2: field 'h_out': got 112; expected 2, derived from the row's shape, dtype "
            "and pass (fix it or drop the column)");
  EXPECT_EQ(error_of(header + "flops\nconv2d,8,3,4,4,64,7,2,3,1888223232\n"),
            "d.csv:2: field 'flops': got 1888223232; expected 602112, derived from the row's "
            "shape, dtype and pass (fix it or drop the column)");
  EXPECT_EQ(error_of("op,batch,c_in,h_in,w_in,c_out,h_out,w_out\nflatten,4,256,6,6,256,1,1\n"),
            "no error");
}

TEST(LayerCsv, DefaultsAndSquareAliases) {
  const auto t = parse_layers_csv(
      "op,batch,c_in,h_in,w_in,c_out,kernel,stride,padding,note\n"
      "conv2d,2,64,56,56,128,3,2,1,keep me\n"
      "relu,1,64,56,56,,,,,\n",
      "l.csv");
  ASSERT_EQ(t.layers.size(), 2u);
  EXPECT_EQ(t.layers[0].kernel_w, 3);
  EXPECT_EQ(t.layers[0].stride_w, 2);
  EXPECT_EQ(t.layers[0].h_out(), 28);
  EXPECT_EQ(t.layers[1].c_out, 64);
  EXPECT_EQ(t.table.rows[0][9], "keep me");
}

TEST(LayerCsv, BadValueNamesLineAndField) {
  try {
    (void)parse_layers_csv("op,batch,c_in\nconv2d,1,-3\n", "bad.csv");
    FAIL();
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("bad.csv:2: field 'c_in'"), std::string::npos) << e.what();
  }
  EXPECT_THROW((void)parse_layers_csv("batch\n1\n", "noop.csv"), InputError);
  EXPECT_THROW((void)parse_layers_csv("op,c_in\nconv2d,1.5\n", "frac.csv"), InputError);
}

TEST(LayerCsv, ActivationAndOptimizerColumns) {
  // MLPredict's rows name TensorFlow's optimizers; an empty cell is none.
  const auto t = parse_layers_csv(
      "op,c_in,c_out,pass,activation,optimizer\n"
      "conv2d,8,16,training,tanh,GradientDescent\n"
      "linear,8,16,training,RELU,RMSProp\n"
      "conv2d,8,16,forward,,none\n"
      "linear,8,16,forward,sigmoid,\n",
      "setup.csv");
  ASSERT_EQ(t.layers.size(), 4u);
  EXPECT_EQ(t.layers[0].activation, Activation::kTanh);
  EXPECT_EQ(t.layers[0].optimizer, Optimizer::kSgd);
  EXPECT_EQ(t.layers[1].activation, Activation::kRelu);
  EXPECT_EQ(t.layers[1].optimizer, Optimizer::kRmsprop);
  EXPECT_EQ(t.layers[2].activation, Activation::kNone);
  EXPECT_EQ(t.layers[2].optimizer, Optimizer::kNone);
  EXPECT_EQ(t.layers[3].activation, Activation::kSigmoid);
  for (const auto o : {Optimizer::kNone, Optimizer::kSgd, Optimizer::kMomentum, Optimizer::kAdagrad,
                       Optimizer::kAdadelta, Optimizer::kRmsprop, Optimizer::kAdam}) {
    EXPECT_EQ(optimizer_from_string(to_string(o)), o);
  }
  for (const auto a :
       {Activation::kNone, Activation::kRelu, Activation::kTanh, Activation::kSigmoid}) {
    EXPECT_EQ(activation_from_string(to_string(a)), a);
  }
  // A layer CSV without the columns: the layer alone.
  const auto plain = parse_layers_csv("op,c_in\nconv2d,8\n", "plain.csv");
  EXPECT_EQ(plain.layers[0].activation, Activation::kNone);
  EXPECT_EQ(plain.layers[0].optimizer, Optimizer::kNone);
}

TEST(LayerCsv, LayoutColumnAsProfileWritesIt) {
  const auto t = parse_layers_csv(
      "op,c_in,c_out,layout\nconv2d,8,16,nhwc\nconv2d,8,16,NCHW\n"
      "conv2d,8,16,\n",
      "rows.csv");
  ASSERT_EQ(t.layers.size(), 3u);
  EXPECT_EQ(t.layers[0].layout, Layout::kNhwc);
  EXPECT_EQ(t.layers[1].layout, Layout::kNchw);
  EXPECT_EQ(t.layers[2].layout, Layout::kNchw);  // empty: the default
  EXPECT_EQ(parse_layers_csv("op,c_in\nconv2d,8\n", "plain.csv").layers[0].layout, Layout::kNchw);
  for (const auto l : {Layout::kNchw, Layout::kNhwc})
    EXPECT_EQ(layout_from_string(to_string(l)), l);
  try {
    (void)parse_layers_csv("op,layout\nconv2d,nchw\nconv2d,chwn\n", "bad.csv");
    FAIL() << "a layout other than nchw or nhwc was read";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("bad.csv:3: field 'layout'"), std::string::npos)
        << e.what();
  }
}

TEST(Layout, OptionNamesTheParameter) {
  EXPECT_EQ(layout_from_option("NHWC", "layout"), Layout::kNhwc);
  try {
    (void)layout_from_option("chwn", "layout");
    FAIL() << "a layout other than nchw or nhwc was accepted";
  } catch (const ParameterError& e) {
    EXPECT_EQ(e.parameter(), "layout");
    EXPECT_EQ(e.detail(), "expected nchw or nhwc, got 'chwn'");
  }
}

TEST(LayerCsv, BadActivationOrOptimizerNamesLineAndField) {
  const auto message = [](const std::string& text) {
    return test::input_error_of([&] { (void)parse_layers_csv(text, "s.csv"); });
  };
  EXPECT_NE(
      message("op,activation\nconv2d,relu\nconv2d,gelu\n").find("s.csv:3: field 'activation'"),
      std::string::npos);
  EXPECT_NE(message("op,pass,optimizer\nlinear,training,lamb\n").find("s.csv:2: field 'optimizer'"),
            std::string::npos);
  // An optimizer only updates weights in a training step.
  const std::string forward = message("op,pass,optimizer\nlinear,forward,adam\n");
  EXPECT_NE(forward.find("s.csv:2: field 'optimizer': expected none for a forward pass"),
            std::string::npos)
      << forward;
}

}  // namespace
}  // namespace cnnperf
