// SPDX-License-Identifier: Apache-2.0
// JSON layer lists (write + read back), their error messages, and network spec dispatch.
// The JSON texts below are synthetic inputs written for these tests.
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>

#include <unistd.h>

#include "cnnperf/common/error.hpp"
#include "cnnperf/common/io.hpp"
#include "cnnperf/model/network_io.hpp"
#include "cnnperf/model/zoo.hpp"

namespace cnnperf {
namespace {

namespace fs = std::filesystem;

void expect_same_layers(const Network& a, const Network& b) {
  EXPECT_EQ(a.name, b.name);
  EXPECT_EQ(a.batch, b.batch);
  EXPECT_EQ(a.input_c, b.input_c);
  EXPECT_EQ(a.input_h, b.input_h);
  EXPECT_EQ(a.input_w, b.input_w);
  ASSERT_EQ(a.layers.size(), b.layers.size());
  for (std::size_t i = 0; i < a.layers.size(); ++i) {
    const Layer& x = a.layers[i];
    const Layer& y = b.layers[i];
    SCOPED_TRACE("layer " + std::to_string(i) + " " + x.name);
    EXPECT_EQ(x.name, y.name);
    EXPECT_EQ(x.op, y.op);
    EXPECT_EQ(x.batch, y.batch);
    EXPECT_EQ(x.c_in, y.c_in);
    EXPECT_EQ(x.h_in, y.h_in);
    EXPECT_EQ(x.w_in, y.w_in);
    EXPECT_EQ(x.c_out, y.c_out);
    EXPECT_EQ(x.kernel_h, y.kernel_h);
    EXPECT_EQ(x.kernel_w, y.kernel_w);
    EXPECT_EQ(x.stride_h, y.stride_h);
    EXPECT_EQ(x.stride_w, y.stride_w);
    EXPECT_EQ(x.pad_h, y.pad_h);
    EXPECT_EQ(x.pad_w, y.pad_w);
    EXPECT_EQ(x.dilation_h, y.dilation_h);
    EXPECT_EQ(x.dilation_w, y.dilation_w);
    EXPECT_EQ(x.groups, y.groups);
    EXPECT_EQ(x.bias, y.bias);
    EXPECT_EQ(x.ceil_mode, y.ceil_mode);
    EXPECT_EQ(x.dtype, y.dtype);
    EXPECT_EQ(x.pass, y.pass);
    EXPECT_EQ(x.num_inputs, y.num_inputs);
  }
}

class ZooRoundTrip : public ::testing::TestWithParam<std::string> {};

TEST_P(ZooRoundTrip, ExportAndReimportIsIdentical) {
  NetworkOptions options;
  options.batch = 3;
  const Network net = build_zoo_network(GetParam(), options);
  ASSERT_FALSE(net.layers.empty());
  const std::string text = network_to_json(net);
  const Network back = parse_network_json(text, GetParam() + ".json");
  expect_same_layers(net, back);
  EXPECT_EQ(back.macs(), net.macs());
  EXPECT_EQ(back.params(), net.params());
  EXPECT_EQ(back.source, GetParam() + ".json");
  EXPECT_EQ(network_to_json(back).size(), text.size() + (back.source.size() - net.source.size()));
}

INSTANTIATE_TEST_SUITE_P(Zoo, ZooRoundTrip,
                         ::testing::Values("resnet50", "mobilenet_v2", "googlenet",
                                           "shufflenet_v2_x1_0", "efficientnet_b0", "inception_v3",
                                           "densenet121"));

TEST(NetworkJson, NonDefaultFieldsSurviveRoundTrip) {
  Network net;
  net.name = "custom";
  net.source = "test (synthetic)";
  net.batch = 2;
  net.input_c = 1;
  net.input_h = 28;
  net.input_w = 20;
  Layer conv;
  conv.name = "c";
  conv.op = Op::kConv2d;
  conv.batch = 2;
  conv.c_in = 4;
  conv.h_in = 28;
  conv.w_in = 20;
  conv.c_out = 8;
  conv.kernel_h = 3;
  conv.kernel_w = 5;
  conv.stride_h = 2;
  conv.pad_w = 2;
  conv.dilation_h = 2;
  conv.groups = 2;
  conv.bias = true;
  conv.dtype = DType::kFp16;
  conv.pass = Pass::kBackwardFilter;
  Layer pool;
  pool.name = "p";
  pool.op = Op::kMaxPool;
  pool.c_in = pool.c_out = 8;
  pool.h_in = pool.w_in = 7;
  pool.kernel_h = pool.kernel_w = 2;
  pool.stride_h = pool.stride_w = 2;
  pool.ceil_mode = true;
  Layer cat;
  cat.name = "cat";
  cat.op = Op::kConcat;
  cat.c_in = cat.c_out = 24;
  cat.num_inputs = 3;
  net.layers = {conv, pool, cat};
  expect_same_layers(net, parse_network_json(network_to_json(net), "custom.json"));
}

TEST(NetworkJson, MinimalFileTakesDocumentedDefaults) {
  const std::string text = R"({
    "schema_version": 1,
    "batch": 4,
    "dtype": "fp16",
    "layers": [
      {"op": "conv", "c_in": 3, "h_in": 32, "w_in": 32, "c_out": 16, "kernel": 3, "padding": 1},
      {"op": "relu", "c_in": 16, "h_in": 32, "w_in": 32},
      {"op": "add", "c_in": 16, "h_in": 32, "w_in": 32, "batch": 1, "dtype": "fp32"}
    ]
  })";
  const Network net = parse_network_json(text, "dir/minimal.json");
  EXPECT_EQ(net.name, "minimal");
  EXPECT_EQ(net.source, "dir/minimal.json");
  EXPECT_EQ(net.batch, 4);
  ASSERT_EQ(net.layers.size(), 3u);
  const Layer& conv = net.layers[0];
  EXPECT_EQ(conv.op, Op::kConv2d);
  EXPECT_EQ(conv.batch, 4);
  EXPECT_EQ(conv.kernel_h, 3);
  EXPECT_EQ(conv.kernel_w, 3);
  EXPECT_EQ(conv.pad_w, 1);
  EXPECT_EQ(conv.stride_w, 1);
  EXPECT_EQ(conv.dtype, DType::kFp16);
  EXPECT_EQ(conv.h_out(), 32);
  EXPECT_EQ(conv.macs(), 4LL * 16 * 32 * 32 * 27);
  EXPECT_EQ(net.layers[1].c_out, 16);  // pointwise ops keep their channels
  EXPECT_EQ(net.layers[2].num_inputs, 2);
  EXPECT_EQ(net.layers[2].batch, 1);
  EXPECT_EQ(net.layers[2].dtype, DType::kFp32);
}

TEST(NetworkJson, OptionsOverrideBatchAndDtype) {
  const std::string text =
      R"({"schema_version": 1, "batch": 2, "layers": [{"op": "linear", "c_in": 8, "c_out": 4}]})";
  ImportOptions options;
  options.batch = 16;
  EXPECT_EQ(parse_network_json(text, "n.json", options).layers[0].batch, 2);
  options.batch_given = true;
  options.dtype = DType::kFp16;
  const Network net = parse_network_json(text, "n.json", options);
  EXPECT_EQ(net.batch, 16);
  EXPECT_EQ(net.layers[0].batch, 16);
  EXPECT_EQ(net.layers[0].dtype, DType::kFp16);
  EXPECT_EQ(net.layers[0].macs(), 16 * 8 * 4);
}

void expect_error(const std::string& text, const std::string& message_start) {
  try {
    (void)parse_network_json(text, "net.json");
    FAIL() << "expected InputError for " << text;
  } catch (const InputError& e) {
    const std::string what = e.what();
    EXPECT_EQ(what.rfind(message_start, 0), 0u) << what;
    EXPECT_EQ(what.find('\n'), std::string::npos) << what;
  }
}

std::string with_layer(const std::string& layer) {
  return R"({"schema_version": 1, "layers": [{"op": "relu"}, {"op": "relu"}, {"op": "relu"}, )" +
         layer + "]}";
}

TEST(NetworkJson, ErrorsNameFileAndField) {
  expect_error(with_layer(R"({"op": "conv", "kernel_h": -1})"),
               "net.json: layers[3].kernel_h: expected a positive integer, got -1");
  expect_error(with_layer(R"({"op": "conv", "kernel_h": 2.5})"),
               "net.json: layers[3].kernel_h: expected a positive integer, got 2.5");
  expect_error(with_layer(R"({"op": "conv", "c_in": "three"})"),
               "net.json: layers[3].c_in: expected a positive integer, got \"three\"");
  expect_error(with_layer(R"({"op": "conv", "pad_h": -1})"),
               "net.json: layers[3].pad_h: expected a non-negative integer");
  expect_error(with_layer(R"({"op": "conv", "kernal_h": 3})"),
               "net.json: layers[3].kernal_h: unknown field (expected one of: name, op");
  expect_error(with_layer(R"({"c_in": 3})"), "net.json: layers[3].op: missing");
  expect_error(with_layer(R"({"op": "frobnicate"})"),
               "net.json: layers[3].op: unknown op 'frobnicate'");
  expect_error(with_layer(R"({"op": "conv", "bias": "yes"})"),
               "net.json: layers[3].bias: expected true or false");
  expect_error(with_layer(R"({"op": "conv", "dtype": "int4"})"),
               "net.json: layers[3].dtype: unknown dtype 'int4'");
  expect_error(with_layer(R"({"op": "conv", "c_in": 6, "c_out": 4, "groups": 4})"),
               "net.json: layers[3]: field 'groups'");
  expect_error(with_layer(R"([1, 2])"), "net.json: layers[3]: expected an object");
  // Fields that contradict each other, or that an op without a window would ignore.
  expect_error(with_layer(R"({"op": "conv", "kernel": 3, "kernel_h": 5})"),
               "net.json: layers[3].kernel_h: 5 contradicts kernel 3; give kernel or the _h/_w "
               "pair");
  expect_error(with_layer(R"({"op": "linear", "c_in": 3, "kernel": 3})"),
               "net.json: layers[3]: field 'kernel_h': expected 1 for linear (it has no window), "
               "got 3");
  expect_error(with_layer(R"({"op": "relu", "c_in": 3, "stride": 2})"),
               "net.json: layers[3]: field 'stride_h': expected 1 for relu (it has no window)");
  expect_error(with_layer(R"({"op": "flatten", "c_in": 3, "h_in": 4, "w_in": 4, "c_out": 5})"),
               "net.json: layers[3]: field 'c_out': expected c_in (3) for flatten, got 5");
  expect_error(with_layer(R"({"op": "conv", "c_in": 3, "c_in": 5})"),
               "net.json: layers[3].c_in: key given twice in one object");
  expect_error(R"({"schema_version": 2, "layers": [{"op": "relu"}]})",
               "net.json: schema_version: expected 1, got 2");
  expect_error(R"({"layers": [{"op": "relu"}]})", "net.json: schema_version: missing");
  expect_error(R"({"schema_version": 1, "layers": []})",
               "net.json: layers: expected a non-empty array");
  expect_error(R"({"schema_version": 1})", "net.json: layers: missing");
  expect_error(R"({"schema_version": 1, "layer": []})", "net.json: layer: unknown field");
  expect_error(R"({"schema_version": 1, "input": {"c": 0}, "layers": [{"op": "relu"}]})",
               "net.json: input.c: expected a positive integer, got 0");
  expect_error(R"([1, 2, 3])", "net.json: expected a JSON object");
  expect_error(R"({"schema_version": 1, "layers": [)", "net.json: invalid JSON: ");
}

fs::path temp_dir() {
  const fs::path dir = fs::temp_directory_path() / ("cnnperf_netio_" + std::to_string(::getpid()));
  fs::create_directories(dir);
  return dir;
}

TEST(NetworkSpec, JsonFileRoundTripThroughImportNetwork) {
  const Network net = build_zoo_network("resnet18", {});
  const fs::path path = temp_dir() / "resnet18_export.json";
  write_output(path.string(), network_to_json(net));
  ImportOptions options;
  const ImportResult r = import_network(path.string(), options);
  expect_same_layers(net, r.network);
  EXPECT_EQ(r.network.source, path.string());
  EXPECT_TRUE(r.skipped.empty());
  EXPECT_TRUE(r.warnings.empty());
  // The export holds exactly the zoo's layers, so it is that network (for its calibration);
  // one changed layer makes it a network of its own.
  EXPECT_EQ(r.network.zoo_network, "resnet18");
  Network edited = net;
  ASSERT_EQ(edited.layers[0].op, Op::kConv2d);
  edited.layers[0].stride_h = edited.layers[0].stride_w = 1;
  const fs::path edited_path = temp_dir() / "resnet18_edited.json";
  write_output(edited_path.string(), network_to_json(edited));
  EXPECT_EQ(import_network(edited_path.string(), options).network.zoo_network, "");
  // --input-size cannot rescale a list of sized layers: said, not silently dropped.
  options.input_h = options.input_w = 112;
  const ImportResult sized = import_network(path.string(), options);
  expect_same_layers(net, sized.network);
  ASSERT_EQ(sized.warnings.size(), 1U);
  EXPECT_EQ(sized.warnings[0], path.string() +
                                   ": an input size does not apply to a layer list (its layers "
                                   "carry their own sizes); ignored");
}

TEST(NetworkSpec, ZooNamesGoToTheZoo) {
  NetworkOptions options;
  options.batch = 4;
  const Network net = load_network("resnet18", options);
  EXPECT_EQ(net.batch, 4);
  EXPECT_EQ(net.macs(), 4 * build_zoo_network("resnet18", {}).macs());
  EXPECT_THROW((void)load_network("resnet_nope", options), InputError);
}

void expect_spec_error(const std::string& spec, const std::string& message) {
  try {
    (void)load_network(spec, NetworkOptions{});
    FAIL() << "expected InputError for " << spec;
  } catch (const InputError& e) {
    EXPECT_EQ(std::string(e.what()), message);
  }
}

TEST(NetworkSpec, MissingFilesAreNamed) {
  expect_spec_error("x.onnx", "x.onnx: no such file");
  expect_spec_error("models/net.JSON", "models/net.JSON: no such file");
  expect_spec_error("some/dir/resnet50", "some/dir/resnet50: no such file");
  const fs::path other = temp_dir() / "net.txt";
  write_output(other.string(), "not a network\n");
  expect_spec_error(other.string(), other.string() +
                                        ": unsupported network file; expected a .onnx model or a "
                                        ".json layer list");
}

TEST(NetworkSpec, OnnxFilesGoToTheImporter) {
  const fs::path model =
      "/usr/share/libonnx-testdata/data/node/test_conv_with_strides_padding/model.onnx";
  if (!fs::exists(model)) {
    // make deps installs the package, so in CI (CI=true) its absence is a failure.
    if (std::getenv("CI") != nullptr) FAIL() << "libonnx-testdata is missing in CI";
    GTEST_SKIP() << "libonnx-testdata is not installed (make deps installs it)";
  }
  NetworkOptions options;
  options.batch = 5;  // != 1, so it replaces the model's explicit batch of 1
  const Network net = load_network(model.string(), options);
  ASSERT_EQ(net.layers.size(), 1u);
  EXPECT_EQ(net.layers[0].op, Op::kConv2d);
  EXPECT_EQ(net.layers[0].batch, 5);
  EXPECT_EQ(net.source, model.string());
  const ImportOptions defaults = import_options_from(NetworkOptions{});
  EXPECT_FALSE(defaults.batch_given);
  EXPECT_EQ(import_network(model.string(), defaults).network.layers[0].batch, 1);
}

}  // namespace
}  // namespace cnnperf
