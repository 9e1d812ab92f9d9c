// SPDX-License-Identifier: Apache-2.0
// ONNX import: synthetic models built here with the protobuf API (every one is SYNTHETIC: zero
// weights, made only to exercise shapes), and real ONNX files nobody here wrote (Debian's
// libonnx-testdata: the ONNX project's backend test models with their expected outputs).
#include <gtest/gtest.h>
#include <onnx/onnx_pb.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <optional>
#include <random>
#include <string>
#include <vector>

#include <unistd.h>

#include "../input_error_of.hpp"
#include "cnnperf/common/error.hpp"
#include "cnnperf/model/network_io.hpp"

namespace cnnperf {
namespace {

namespace fs = std::filesystem;

// Builds a synthetic ModelProto node by node.
class ModelBuilder {
 public:
  explicit ModelBuilder(int opset = 13) {
    model_.set_ir_version(8);
    model_.set_producer_name("cnnperf-test (synthetic)");
    auto* op = model_.add_opset_import();
    op->set_domain("");
    op->set_version(opset);
    graph_ = model_.mutable_graph();
    graph_->set_name("synthetic");
  }

  // dims: -1 = dynamic (dim_param), 0 = dynamic (no value at all).
  void input(const std::string& name, const std::vector<std::int64_t>& dims,
             int elem = onnx::TensorProto::FLOAT) {
    auto* in = graph_->add_input();
    in->set_name(name);
    auto* tensor = in->mutable_type()->mutable_tensor_type();
    tensor->set_elem_type(elem);
    auto* shape = tensor->mutable_shape();
    for (const auto d : dims) {
      auto* dim = shape->add_dim();
      if (d > 0) dim->set_dim_value(d);
      if (d < 0) dim->set_dim_param("N");
    }
  }
  // An invalid file's raw dim_value (negative), which input() turns into a dim_param.
  void set_input_dim_value(int input, int dim, std::int64_t value) {
    graph_->mutable_input(input)
        ->mutable_type()
        ->mutable_tensor_type()
        ->mutable_shape()
        ->mutable_dim(dim)
        ->set_dim_value(value);
  }

  void output(const std::string& name) {
    auto* out = graph_->add_output();
    out->set_name(name);
    out->mutable_type()->mutable_tensor_type()->set_elem_type(onnx::TensorProto::FLOAT);
  }

  void weight(const std::string& name, const std::vector<std::int64_t>& dims) {
    auto* t = graph_->add_initializer();
    t->set_name(name);
    t->set_data_type(onnx::TensorProto::FLOAT);
    std::int64_t count = 1;
    for (const auto d : dims) {
      t->add_dims(d);
      count *= d;
    }
    t->set_raw_data(std::string(static_cast<std::size_t>(count) * sizeof(float), '\0'));
  }

  // An INT64 initializer with these dims and no data (a hostile file's header).
  void dims_only(const std::string& name, const std::vector<std::int64_t>& dims) {
    auto* t = graph_->add_initializer();
    t->set_name(name);
    t->set_data_type(onnx::TensorProto::INT64);
    for (const auto d : dims) t->add_dims(d);
  }

  void floats(const std::string& name, const std::vector<float>& values, bool scalar = true) {
    auto* t = graph_->add_initializer();
    t->set_name(name);
    t->set_data_type(onnx::TensorProto::FLOAT);
    if (!scalar) t->add_dims(static_cast<std::int64_t>(values.size()));
    for (const auto v : values) t->add_float_data(v);
  }

  void ints(const std::string& name, const std::vector<std::int64_t>& values) {
    auto* t = graph_->add_initializer();
    t->set_name(name);
    t->set_data_type(onnx::TensorProto::INT64);
    t->add_dims(static_cast<std::int64_t>(values.size()));
    for (const auto v : values) t->add_int64_data(v);
  }

  onnx::NodeProto& node(const std::string& op, const std::vector<std::string>& inputs,
                        const std::vector<std::string>& outputs, const std::string& name = "") {
    auto* n = graph_->add_node();
    n->set_op_type(op);
    n->set_name(name);
    for (const auto& i : inputs) n->add_input(i);
    for (const auto& o : outputs) n->add_output(o);
    return *n;
  }

  static void attr(onnx::NodeProto& n, const std::string& name, std::vector<std::int64_t> values) {
    auto* a = n.add_attribute();
    a->set_name(name);
    a->set_type(onnx::AttributeProto::INTS);
    for (const auto v : values) a->add_ints(v);
  }
  static void attr(onnx::NodeProto& n, const std::string& name, std::int64_t value) {
    auto* a = n.add_attribute();
    a->set_name(name);
    a->set_type(onnx::AttributeProto::INT);
    a->set_i(value);
  }
  static void attr_f(onnx::NodeProto& n, const std::string& name, float value) {
    auto* a = n.add_attribute();
    a->set_name(name);
    a->set_type(onnx::AttributeProto::FLOAT);
    a->set_f(value);
  }
  static void attr_s(onnx::NodeProto& n, const std::string& name, const std::string& value) {
    auto* a = n.add_attribute();
    a->set_name(name);
    a->set_type(onnx::AttributeProto::STRING);
    a->set_s(value);
  }

  [[nodiscard]] std::string bytes() const { return model_.SerializeAsString(); }

  // Writes the model under a per-test temporary directory; returns the path.
  [[nodiscard]] fs::path write(const std::string& file) const {
    const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
    const fs::path dir = fs::temp_directory_path() / ("cnnperf_onnx_" + std::string(info->name()) +
                                                      "_" + std::to_string(::getpid()));
    fs::create_directories(dir);
    const fs::path path = dir / file;
    std::ofstream out(path, std::ios::binary);
    out << bytes();
    return path;
  }

 private:
  onnx::ModelProto model_;
  onnx::GraphProto* graph_;
};

// conv+bn+relu+maxpool, residual add, concat, global average pool, flatten, gemm.
ModelBuilder small_cnn(std::int64_t batch_dim = 1) {
  ModelBuilder m;
  m.input("x", {batch_dim, 3, 32, 32});
  m.weight("w1", {16, 3, 3, 3});
  m.weight("b1", {16});
  for (const char* p : {"bn_s", "bn_b", "bn_m", "bn_v"}) m.weight(p, {16});
  m.weight("w2", {16, 16, 3, 3});
  m.weight("w3", {8, 16, 1, 1});
  m.weight("wfc", {10, 24});
  m.weight("bfc", {10});
  auto& c1 = m.node("Conv", {"x", "w1", "b1"}, {"c1"}, "conv1");
  ModelBuilder::attr(c1, "pads", {1, 1, 1, 1});
  ModelBuilder::attr(c1, "kernel_shape", {3, 3});
  m.node("BatchNormalization", {"c1", "bn_s", "bn_b", "bn_m", "bn_v"}, {"n1"}, "bn1");
  m.node("Relu", {"n1"}, {"r1"}, "relu1");
  auto& p1 = m.node("MaxPool", {"r1"}, {"p1"}, "pool1");
  ModelBuilder::attr(p1, "kernel_shape", {2, 2});
  ModelBuilder::attr(p1, "strides", {2, 2});
  auto& c2 = m.node("Conv", {"p1", "w2"}, {"c2"}, "conv2");
  ModelBuilder::attr(c2, "pads", {1, 1, 1, 1});
  m.node("Add", {"c2", "p1"}, {"a1"}, "");  // unnamed: takes the output name
  m.node("Conv", {"a1", "w3"}, {"c3"}, "conv3");
  auto& cat = m.node("Concat", {"a1", "c3"}, {"cat"}, "cat");
  ModelBuilder::attr(cat, "axis", std::int64_t{1});
  m.node("GlobalAveragePool", {"cat"}, {"gap"}, "gap");
  m.node("Flatten", {"gap"}, {"flat"}, "flatten");
  auto& fc = m.node("Gemm", {"flat", "wfc", "bfc"}, {"y"}, "fc");
  ModelBuilder::attr(fc, "transB", std::int64_t{1});
  m.output("y");
  return m;
}

TEST(OnnxImport, SmallCnnShapesParamsAndMacs) {
  const fs::path path = small_cnn().write("synthetic_small_cnn.onnx");
  const ImportResult result = import_onnx(path);
  const Network& net = result.network;
  EXPECT_TRUE(result.skipped.empty());
  EXPECT_TRUE(result.warnings.empty()) << result.warnings.front();
  EXPECT_EQ(net.name, "synthetic_small_cnn");
  EXPECT_EQ(net.source, path.string());
  EXPECT_EQ(net.batch, 1);
  EXPECT_EQ(net.input_c, 3);
  EXPECT_EQ(net.input_h, 32);
  EXPECT_EQ(net.input_w, 32);
  ASSERT_EQ(net.layers.size(), 11u);

  struct Expect {
    const char* name;
    Op op;
    std::int64_t c_in, h_in, w_in, c_out, h_out, params, macs;
  };
  const std::vector<Expect> expected{
      {"conv1", Op::kConv2d, 3, 32, 32, 16, 32, 16 * 27 + 16, 16LL * 32 * 32 * 27},
      {"bn1", Op::kBatchNorm, 16, 32, 32, 16, 32, 32, 0},
      {"relu1", Op::kRelu, 16, 32, 32, 16, 32, 0, 0},
      {"pool1", Op::kMaxPool, 16, 32, 32, 16, 16, 0, 0},
      {"conv2", Op::kConv2d, 16, 16, 16, 16, 16, 16 * 16 * 9, 16LL * 16 * 16 * 16 * 9},
      {"a1", Op::kAdd, 16, 16, 16, 16, 16, 0, 0},
      {"conv3", Op::kConv2d, 16, 16, 16, 8, 16, 8 * 16, 8LL * 16 * 16 * 16},
      {"cat", Op::kConcat, 24, 16, 16, 24, 16, 0, 0},
      {"gap", Op::kGlobalAvgPool, 24, 16, 16, 24, 1, 0, 0},
      {"flatten", Op::kFlatten, 24, 1, 1, 24, 1, 0, 0},
      {"fc", Op::kLinear, 24, 1, 1, 10, 1, 250, 240},
  };
  for (std::size_t i = 0; i < expected.size(); ++i) {
    const Layer& l = net.layers[i];
    const Expect& e = expected[i];
    SCOPED_TRACE(e.name);
    EXPECT_EQ(l.name, e.name);
    EXPECT_EQ(l.op, e.op);
    EXPECT_EQ(l.batch, 1);
    EXPECT_EQ(l.c_in, e.c_in);
    EXPECT_EQ(l.h_in, e.h_in);
    EXPECT_EQ(l.w_in, e.w_in);
    EXPECT_EQ(l.c_out, e.c_out);
    EXPECT_EQ(l.h_out(), e.h_out);
    EXPECT_EQ(l.w_out(), e.h_out);
    EXPECT_EQ(l.params(), e.params);
    EXPECT_EQ(l.macs(), e.macs);
    EXPECT_EQ(l.dtype, DType::kFp32);
  }
  EXPECT_TRUE(net.layers[0].bias);
  EXPECT_FALSE(net.layers[4].bias);
  EXPECT_EQ(net.layers[0].pad_h, 1);
  EXPECT_EQ(net.layers[3].stride_h, 2);
  EXPECT_EQ(net.layers[5].num_inputs, 2);
  EXPECT_EQ(net.layers[7].num_inputs, 2);
  EXPECT_EQ(net.macs(), 442368 + 589824 + 32768 + 240);
}

TEST(OnnxImport, DepthwiseConvWithStride) {
  ModelBuilder m;
  m.input("x", {1, 32, 28, 28});
  m.weight("w", {32, 1, 3, 3});
  auto& c = m.node("Conv", {"x", "w"}, {"y"}, "dw");
  ModelBuilder::attr(c, "group", std::int64_t{32});
  ModelBuilder::attr(c, "strides", {2, 2});
  ModelBuilder::attr(c, "pads", {1, 1, 1, 1});
  m.output("y");
  const Network net = load_onnx(m.write("synthetic_dw.onnx"));
  ASSERT_EQ(net.layers.size(), 1u);
  const Layer& l = net.layers[0];
  EXPECT_EQ(l.groups, 32);
  EXPECT_EQ(l.c_in, 32);
  EXPECT_EQ(l.c_out, 32);
  EXPECT_EQ(l.h_out(), 14);
  EXPECT_EQ(l.params(), 32 * 9);
  EXPECT_EQ(l.macs(), 32 * 14 * 14 * 9);
}

// ONNX's shape inference divides by strides unchecked: a zero stride was a SIGFPE inside
// libonnx before the importer's own check could run.
TEST(OnnxImport, ZeroStrideIsAnInputErrorNotACrash) {
  for (const std::string op : {"Conv", "MaxPool", "AveragePool"}) {
    ModelBuilder m;
    m.input("x", {1, 8, 16, 16});
    std::vector<std::string> inputs{"x"};
    if (op == "Conv") {
      m.weight("w", {8, 8, 3, 3});
      inputs.push_back("w");
    }
    auto& n = m.node(op, inputs, {"y"}, "bad");
    if (op != "Conv") ModelBuilder::attr(n, "kernel_shape", {3, 3});
    ModelBuilder::attr(n, "strides", {0, 1});
    m.output("y");
    const fs::path path = m.write("synthetic_zero_stride.onnx");
    try {
      (void)import_onnx(path);
      FAIL() << op << ": expected InputError";
    } catch (const InputError& e) {
      EXPECT_EQ(std::string(e.what()),
                path.string() + ": node 'bad' (op_type " + op +
                    "): attribute 'strides': expected positive values, got 0");
    }
  }
}

// A kernel_shape the weight contradicts, and a negative input dimension, were used silently
// (the attribute won; the batch became 1).
TEST(OnnxImport, KernelShapeAgainstTheWeightAndNegativeDimensionsAreInputErrors) {
  ModelBuilder m;
  m.input("x", {1, 8, 16, 16});
  m.weight("w", {8, 8, 7, 7});
  auto& c = m.node("Conv", {"x", "w"}, {"y"}, "k");
  ModelBuilder::attr(c, "kernel_shape", {3, 3});
  m.output("y");
  const fs::path path = m.write("synthetic_kernel_mismatch.onnx");
  try {
    (void)import_onnx(path);
    FAIL();
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("kernel_shape [3,3] does not match the weight's [7,7]"),
              std::string::npos)
        << e.what();
  }
  ModelBuilder n;
  n.input("x", {1, 8, 16, 16});
  n.set_input_dim_value(0, 0, -5);
  n.node("Relu", {"x"}, {"y"}, "r");
  n.output("y");
  const fs::path negative = n.write("synthetic_negative_batch.onnx");
  try {
    (void)import_onnx(negative);
    FAIL();
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("dimension 0 is -5; expected a positive size"),
              std::string::npos)
        << e.what();
  }
}

// Every size fits in 32 bits (cuDNN's ints); products beyond int64 were negative FLOPs.
TEST(OnnxImport, HugeDimensionIsAnInputError) {
  ModelBuilder m;
  m.input("x", {1, 8, 4294967296, 16});
  m.node("Relu", {"x"}, {"y"}, "big");
  m.output("y");
  const fs::path path = m.write("synthetic_huge_dim.onnx");
  try {
    (void)import_onnx(path);
    FAIL() << "expected InputError";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("field 'h_in': expected at most 2147483647"),
              std::string::npos)
        << e.what();
  }
}

// The element count of an initializer whose dims multiply past int64 overflowed (undefined
// behaviour, an abort under UBSan: found by tests/fuzz/onnx_import_fuzz); such a tensor is not
// a small constant, and an unused one does not stop the import.
TEST(OnnxImport, InitializerDimsPastInt64AreNotAConstant) {
  for (const std::vector<std::int64_t>& dims :
       {std::vector<std::int64_t>{1L << 40, 1L << 40, 97}, {-3, -5, 1L << 62}, {0, 1L << 62}}) {
    auto m = small_cnn();
    m.dims_only("unused_huge", dims);
    const auto r = import_onnx_bytes(m.bytes(), "synthetic_huge_initializer.onnx");
    EXPECT_EQ(r.network.layers.size(),
              import_onnx_bytes(small_cnn().bytes(), "a.onnx").network.layers.size());
  }
}

// The bytes of an input the fuzz target found, kept in tests/fuzz/regressions/onnx_import/
// (which every fuzz run replays too); empty, and a test failure, when it cannot be read.
std::string regression_bytes(const std::string& file) {
  const fs::path path = fs::path(CNNPERF_SOURCE_DIR_FOR_TESTS) / "tests" / "fuzz" / "regressions" /
                        "onnx_import" / file;
  std::ifstream in(path, std::ios::binary);
  std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  if (bytes.empty()) ADD_FAILURE() << "cannot read " << path;
  return bytes;
}

// Inputs the fuzz target found (tests/fuzz/regressions/, which every fuzz run replays too):
// each imports or is an InputError, never a crash. The untyped Conv attribute crashed inside
// libonnx's shape inference (SIGSEGV), which is now skipped with a warning naming it.
TEST(OnnxImport, FuzzFindingsImportOrAreInputErrors) {
  // The unsupported op's message listed the supported ones through the loader, which, inside
  // a build without the module beside it (the fuzz targets'), threw past the entry point;
  // `make fuzz-smoke` replays it there.
  for (const char* file :
       {"finding_untyped_conv_attribute.onnx", "finding_initializer_dims_overflow.onnx",
        "finding_unsupported_op_inside_module.onnx"}) {
    const std::string bytes = regression_bytes(file);
    ASSERT_FALSE(bytes.empty());
    try {
      const auto r = import_onnx_bytes(bytes, file);
      if (std::string(file).find("untyped") != std::string::npos) {
        bool named = false;
        for (const auto& w : r.warnings) {
          named = named || w.find("attribute 'pads' of node 'y' has no type") != std::string::npos;
        }
        EXPECT_TRUE(named) << ::testing::PrintToString(r.warnings);
      }
    } catch (const InputError& e) {
      EXPECT_EQ(std::string(e.what()).rfind(std::string(file) + ": ", 0), 0u) << e.what();
    }
  }
}

// A graph input declared twice (a Gemm's weight, with an initializer of the same name also
// twice) crashed inside libonnx's shape inference (SIGSEGV, fuzz finding); it is refused first.
TEST(OnnxImport, AGraphInputDeclaredTwiceIsRefusedBeforeOnnxShapeInference) {
  const std::string bytes = regression_bytes("finding_duplicate_graph_input.onnx");
  try {
    (void)import_onnx_bytes(bytes, "dup.onnx");
    ADD_FAILURE() << "imported a graph that declares input '1' twice";
  } catch (const InputError& e) {
    EXPECT_EQ(std::string(e.what()),
              "dup.onnx: graph input '1' is declared twice (ONNX names each tensor once)");
  }
}

// A Gemm whose B has rank 1 (opset 6, B both a graph input and an initializer) crashed inside
// libonnx's shape inference (SIGSEGV, fuzz finding); it is refused first, naming node and input.
// The synthetic ones: a rank-3 A from a graph input and a rank-0 B from an initializer.
TEST(OnnxImport, AGemmInputOfRankOtherThanTwoIsRefusedBeforeOnnxShapeInference) {
  const std::string bytes = regression_bytes("finding_gemm_rank1_b.onnx");
  EXPECT_EQ(test::input_error_of([&] { (void)import_onnx_bytes(bytes, "gemm.onnx"); }),
            "gemm.onnx: node '3' (op_type Gemm): input B '2' has rank 1; Gemm multiplies rank-2 "
            "A and B");

  ModelBuilder rank3_a(6);
  rank3_a.input("x", {2, 3, 4});
  rank3_a.weight("w", {4, 5});
  rank3_a.node("Gemm", {"x", "w"}, {"y"}, "fc");
  rank3_a.output("y");
  EXPECT_EQ(test::input_error_of(
                [&] { (void)import_onnx_bytes(rank3_a.bytes(), "synthetic_gemm_a3.onnx"); }),
            "synthetic_gemm_a3.onnx: node 'fc' (op_type Gemm): input A 'x' has rank 3; Gemm "
            "multiplies rank-2 A and B");

  ModelBuilder rank0_b(6);
  rank0_b.input("x", {3, 4});
  rank0_b.floats("w", {1.0F});
  ModelBuilder::attr(rank0_b.node("Gemm", {"x", "w"}, {"y"}, "fc"), "transB", std::int64_t{1});
  rank0_b.output("y");
  EXPECT_EQ(test::input_error_of(
                [&] { (void)import_onnx_bytes(rank0_b.bytes(), "synthetic_gemm_b0.onnx"); }),
            "synthetic_gemm_b0.onnx: node 'fc' (op_type Gemm): input B 'w' has rank 0; Gemm "
            "multiplies rank-2 A and B");
}

// The same crash with a rank-1 B that a Reshape computes: its shape exists only inside ONNX's
// inference, whose Gemm rule cnnperf wraps with a rank check; the walk then refuses the node.
TEST(OnnxImport, AGemmOnAComputedRankOneTensorIsAnInputErrorNotACrash) {
  ModelBuilder m(6);  // SYNTHETIC; opset 6 selects the Gemm rule that crashed
  m.input("x", {4, 10});
  m.input("x2", {10, 8});
  m.ints("s", {80});
  m.floats("c", std::vector<float>(8, 0.0F), false);
  m.node("Reshape", {"x2", "s"}, {"w"}, "flat");
  m.node("Gemm", {"x", "w", "c"}, {"y"}, "fc");
  m.output("y");
  EXPECT_EQ(
      test::input_error_of([&] { (void)import_onnx_bytes(m.bytes(), "synthetic_gemm_b1.onnx"); }),
      "synthetic_gemm_b1.onnx: node 'fc' (op_type Gemm): expected 2-D A and B, got [4,10] and "
      "[80]");
}

// A rank-2 input to a Conv with a rank-4 weight and 2-D strides crashed inside libonnx's
// shape inference (fuzz finding); it is refused before that runs.
TEST(OnnxImport, AWindowOpsRanksAreCheckedBeforeOnnxShapeInference) {
  const std::string bytes = regression_bytes("finding_conv_rank_mismatch.onnx");
  const std::string what =
      test::input_error_of([&] { (void)import_onnx_bytes(bytes, "finding.onnx"); });
  EXPECT_NE(what.find("input 'x' has rank 2; expected N, C and at least one spatial dimension"),
            std::string::npos)
      << what;
}

// Graphs ONNX itself calls invalid were timed as if they ran: a node reading a tensor nothing
// defines, two nodes writing one tensor, opset 0, a softmax axis outside the tensor.
TEST(OnnxImport, InvalidGraphsAreInputErrorsNamingNodeAndTensor) {
  auto error_of = [](const ModelBuilder& m, const std::string& file) {
    return test::input_error_of([&] { (void)import_onnx(m.write(file)); });
  };
  ModelBuilder undefined;
  undefined.input("x", {1, 3, 8, 8});
  undefined.node("Relu", {"x"}, {"a"}, "r");
  undefined.node("Add", {"a", "nope"}, {"y"}, "add");
  undefined.output("y");
  EXPECT_NE(error_of(undefined, "synthetic_undefined_input.onnx")
                .find("node 'add' (op_type Add): input 'nope' is not a graph input, an "
                      "initializer or the output of an earlier node"),
            std::string::npos);

  ModelBuilder twice;
  twice.input("x", {1, 3, 8, 8});
  twice.node("Relu", {"x"}, {"y"}, "first");
  twice.node("Relu", {"x"}, {"y"}, "second");
  twice.output("y");
  EXPECT_NE(error_of(twice, "synthetic_dup_output.onnx")
                .find("node 'second' (op_type Relu): output 'y' is already defined by node "
                      "'first'"),
            std::string::npos);

  ModelBuilder opset0(0);
  opset0.input("x", {1, 3, 8, 8});
  opset0.node("Relu", {"x"}, {"y"}, "r");
  opset0.output("y");
  EXPECT_NE(error_of(opset0, "synthetic_opset0.onnx").find("default-domain opset 0; expected 1"),
            std::string::npos);

  ModelBuilder softmax;
  softmax.input("x", {1, 3, 8, 8});
  ModelBuilder::attr(softmax.node("Softmax", {"x"}, {"y"}, "sm"), "axis", std::int64_t{-99});
  softmax.output("y");
  EXPECT_NE(error_of(softmax, "synthetic_softmax_axis.onnx")
                .find("attribute 'axis' is -99; expected -4 to 3"),
            std::string::npos);
}

// A newer opset than libonnx knows still imports (most operators did not change), with a note.
TEST(OnnxImport, NewerOpsetWarnsAndImports) {
  ModelBuilder m(999);
  m.input("x", {1, 3, 8, 8});
  m.node("Relu", {"x"}, {"y"}, "r");
  m.output("y");
  const ImportResult result = import_onnx(m.write("synthetic_opset999.onnx"));
  ASSERT_EQ(result.network.layers.size(), 1U);
  ASSERT_FALSE(result.warnings.empty());
  EXPECT_NE(result.warnings.front().find("opset 999 is newer than this build's ONNX library "
                                         "knows (17)"),
            std::string::npos)
      << result.warnings.front();
}

// Common elementwise ops without a row type of their own were unsupported (an error without
// --skip-unsupported): they become the row type of their cost; Split and Slice are views.
TEST(OnnxImport, OtherElementwiseOpsAndSplitSliceViews) {
  ModelBuilder m;
  m.input("x", {2, 8, 16, 16});
  m.node("LeakyRelu", {"x"}, {"lr"}, "leaky");
  m.ints("sp", {4, 4});
  ModelBuilder::attr(m.node("Split", {"lr", "sp"}, {"a", "b"}, "chunk"), "axis", std::int64_t{1});
  m.weight("slope", {4, 1, 1});
  m.node("PRelu", {"a", "slope"}, {"pa"}, "prelu");
  m.node("Erf", {"b"}, {"eb"}, "erf");
  m.ints("starts", {0});
  m.ints("ends", {8});
  m.ints("axes", {2});
  m.node("Slice", {"eb", "starts", "ends", "axes"}, {"half"}, "narrow");
  m.node("Relu", {"half"}, {"rh"}, "after_slice");
  // x[:, 0] of the Cast below: a constant Gather on the channel axis is a view too.
  m.ints("first", {0});
  ModelBuilder::attr(m.node("Cast", {"pa"}, {"pc"}, "cast"), "to",
                     std::int64_t{onnx::TensorProto::FLOAT});
  ModelBuilder::attr(m.node("Gather", {"pc", "first"}, {"g"}, "select"), "axis", std::int64_t{1});
  m.node("Sigmoid", {"g"}, {"sg"}, "after_gather");
  m.output("rh");
  m.output("sg");
  const ImportResult r = import_onnx(m.write("synthetic_elementwise_views.onnx"));
  ASSERT_TRUE(r.skipped.empty());
  const auto& layers = r.network.layers;
  ASSERT_EQ(layers.size(), 6U);  // no row for Split, Slice or Gather
  EXPECT_EQ(layers[0].name, "leaky");
  EXPECT_EQ(layers[0].op, Op::kRelu);
  EXPECT_EQ(layers[0].c_in, 8);
  EXPECT_EQ(layers[1].name, "prelu");
  EXPECT_EQ(layers[1].op, Op::kMul);
  EXPECT_EQ(layers[1].c_in, 4);  // half the channels, from the split
  EXPECT_EQ(layers[1].num_inputs, 2);
  EXPECT_EQ(layers[2].name, "erf");
  EXPECT_EQ(layers[2].op, Op::kTanh);
  EXPECT_EQ(layers[2].c_in * layers[2].h_in * layers[2].w_in, 4 * 16 * 16);
  EXPECT_EQ(layers[3].name, "after_slice");  // rows 0-7 of the 16: the slice's shape
  EXPECT_EQ(layers[3].batch * layers[3].c_in * layers[3].h_in * layers[3].w_in, 2 * 4 * 8 * 16);
  EXPECT_EQ(layers[4].name, "cast");
  EXPECT_EQ(layers[4].c_in * layers[4].h_in * layers[4].w_in, 4 * 16 * 16);
  EXPECT_EQ(layers[5].name, "after_gather");  // one channel of the four, [2, 1, 16, 16]
  EXPECT_EQ(layers[5].batch * layers[5].c_in * layers[5].h_in * layers[5].w_in, 2 * 16 * 16);
}

// TensorFlow exports pad explicitly before a SAME convolution: the zero Pad folds into the
// convolution's padding (cuDNN pads there) instead of failing the import.
TEST(OnnxImport, ZeroPadFoldsIntoTheConvItFeeds) {
  auto model = [](float value, const std::string& consumer) {
    ModelBuilder m;
    m.input("x", {1, 8, 16, 16});
    m.ints("pads", {0, 0, 0, 0, 0, 0, 1, 1});  // TF SAME, stride 2: one extra row and column
    m.floats("value", {value});
    m.node("Pad", {"x", "pads", "value"}, {"xp"}, "pad");
    if (consumer == "Conv") {
      m.weight("w", {4, 8, 3, 3});
      ModelBuilder::attr(m.node("Conv", {"xp", "w"}, {"y"}, "conv"), "strides", {2, 2});
    } else {
      m.node(consumer, {"xp"}, {"y"}, "after");
    }
    m.output("y");
    return m;
  };
  const ImportResult r = import_onnx(model(0.0F, "Conv").write("synthetic_pad_conv.onnx"));
  ASSERT_EQ(r.network.layers.size(), 1U);  // no row for the Pad
  const Layer& conv = r.network.layers[0];
  EXPECT_EQ(conv.h_in, 16);
  EXPECT_EQ(conv.w_in, 16);
  EXPECT_EQ(conv.h_out(), 8);  // (16 + 0 + 1 - 3) / 2 + 1, as over the padded 17x17
  EXPECT_EQ(conv.w_out(), 8);
  // A non-zero pad, or one that feeds no window, is a kernel of its own: a copy row that
  // writes the padded tensor, before an unpadded window.
  for (const auto& [value, consumer] : {std::pair{1.0F, std::string("Conv")}, {0.0F, "Relu"}}) {
    const ImportResult other =
        import_onnx(model(value, consumer).write("synthetic_pad_other.onnx"));
    ASSERT_EQ(other.network.layers.size(), 2U) << consumer;
    EXPECT_EQ(other.network.layers[0].op, Op::kChannelShuffle);
    EXPECT_EQ(other.network.layers[0].output_elements(), 8 * 17 * 17);
    EXPECT_EQ(other.network.layers[1].h_in, 17) << consumer;
  }
}

// A UNet's or an FPN's upsampling was unsupported: it is a copy row at the output size.
TEST(OnnxImport, ResizeIsACopyAtTheOutputSize) {
  ModelBuilder m;
  m.input("x", {1, 4, 8, 8});
  m.floats("scales", {1, 1, 2, 2}, false);
  m.node("Resize", {"x", "", "scales"}, {"up"}, "upsample");
  m.node("Relu", {"up"}, {"y"}, "after");
  m.output("y");
  const ImportResult r = import_onnx(m.write("synthetic_resize.onnx"));
  ASSERT_EQ(r.network.layers.size(), 2U);
  const Layer& up = r.network.layers[0];
  EXPECT_EQ(up.op, Op::kChannelShuffle);
  EXPECT_EQ(up.output_elements(), 4 * 16 * 16);
  EXPECT_EQ(r.network.layers[1].h_in, 16);
  EXPECT_EQ(r.network.layers[1].w_in, 16);
}

// ---- CNN operators mapped to the row of the kernel they run as (docs/model-import.md) ----

// The InputError message of importing `m` written as `file` ("no error" when it imports).
std::string import_error(const ModelBuilder& m, const std::string& file) {
  return test::input_error_of([&] { (void)import_onnx(m.write(file)); });
}

TEST(OnnxImport, ConvTransposeIsTheConvolutionWhoseBackwardDataItRuns) {
  for (const std::int64_t group : {1, 2}) {
    ModelBuilder m;
    m.input("x", {1, 8, 5, 5});
    m.weight("w", {8, 4 / group, 3, 3});  // (C_in, C_out / group, kh, kw)
    m.weight("b", {4});
    auto& t = m.node("ConvTranspose", {"x", "w", "b"}, {"up"}, "deconv");
    ModelBuilder::attr(t, "strides", {2, 2});
    ModelBuilder::attr(t, "pads", {1, 1, 1, 1});
    ModelBuilder::attr(t, "output_padding", {1, 1});
    ModelBuilder::attr(t, "group", group);
    m.node("Relu", {"up"}, {"y"}, "after");
    m.output("y");
    const ImportResult r = import_onnx(m.write("synthetic_convtranspose.onnx"));
    ASSERT_EQ(r.network.layers.size(), 2U);
    EXPECT_TRUE(r.warnings.empty()) << r.warnings.front();
    const Layer& l = r.network.layers[0];
    // Output 2*(5-1) + 1 + 3 - 2 = 10; the row maps 4 channels of 10x10 back to 8 of 5x5.
    EXPECT_EQ(l.op, Op::kConv2d);
    EXPECT_EQ(l.c_in, 4);
    EXPECT_EQ(l.h_in, 10);
    EXPECT_EQ(l.w_in, 10);
    EXPECT_EQ(l.c_out, 8);
    EXPECT_EQ(l.groups, group);
    EXPECT_EQ(l.h_out(), 5);
    EXPECT_EQ(l.w_out(), 5);
    // Each of the 8*5*5 inputs is multiplied into (4/group)*3*3 outputs.
    EXPECT_EQ(l.macs(), 8LL * 5 * 5 * (4 / group) * 3 * 3);
    EXPECT_EQ(l.params(), 8 * (4 / group) * 3 * 3 + 8);  // bias counted per row c_out
    EXPECT_EQ(r.network.layers[1].input_elements(), 4 * 10 * 10);
  }
}

TEST(OnnxImport, ConvTransposeBadOutputPaddingIsAnInputError) {
  ModelBuilder m;
  m.input("x", {1, 2, 4, 4});
  m.weight("w", {2, 2, 3, 3});
  auto& t = m.node("ConvTranspose", {"x", "w"}, {"y"}, "deconv");
  ModelBuilder::attr(t, "output_padding", {2, 2});  // not less than stride 1 or dilation 1
  m.output("y");
  EXPECT_NE(import_error(m, "synthetic_bad_deconv.onnx").find("output_padding 2"),
            std::string::npos);
}

TEST(OnnxImport, ThreeDimensionalConvStaysUnsupported) {
  ModelBuilder m;
  m.input("x", {1, 2, 4, 4, 4});
  m.weight("w", {3, 2, 3, 3, 3});
  m.node("Conv", {"x", "w"}, {"y"}, "conv3d");
  m.output("y");
  const std::string what = import_error(m, "synthetic_conv3d.onnx");
  EXPECT_NE(what.find("node 'conv3d' (op_type Conv): a 3-D window"), std::string::npos) << what;
  EXPECT_NE(what.find("no depth dimension"), std::string::npos) << what;
}

TEST(OnnxImport, InstanceNormIsALayerNormOverThePlane) {
  ModelBuilder m;
  m.input("x", {2, 3, 4, 5});
  m.weight("s", {3});
  m.weight("b", {3});
  m.node("InstanceNormalization", {"x", "s", "b"}, {"y"}, "in");
  m.output("y");
  const ImportResult r = import_onnx(m.write("synthetic_instancenorm.onnx"));
  ASSERT_EQ(r.network.layers.size(), 1U);
  const Layer& l = r.network.layers[0];
  EXPECT_EQ(l.op, Op::kLayerNorm);
  EXPECT_EQ(l.batch, 2);
  EXPECT_EQ(l.h_in, 3);
  EXPECT_EQ(l.c_in, 20);
  EXPECT_EQ(l.input_elements(), 2 * 3 * 4 * 5);
  EXPECT_EQ(l.output_elements(), 2 * 3 * 4 * 5);
}

TEST(OnnxImport, LrnIsAnAvgPoolAlongTheChannels) {
  for (const std::int64_t size : {5, 4}) {
    ModelBuilder m;
    m.input("x", {1, 8, 4, 4});
    auto& n = m.node("LRN", {"x"}, {"y"}, "lrn");
    ModelBuilder::attr(n, "size", size);
    m.output("y");
    const ImportResult r = import_onnx(m.write("synthetic_lrn.onnx"));
    ASSERT_EQ(r.network.layers.size(), 1U);
    const Layer& l = r.network.layers[0];
    EXPECT_EQ(l.op, Op::kAvgPool);
    EXPECT_EQ(l.h_in, 8);
    EXPECT_EQ(l.c_in, 16);
    EXPECT_EQ(l.kernel_h, size);
    EXPECT_EQ(l.pad_h, (size - 1) / 2);
    EXPECT_EQ(l.pad_bottom(), size / 2);
    EXPECT_EQ(l.h_out(), 8);
    EXPECT_EQ(l.output_elements(), 8 * 4 * 4);
    EXPECT_DOUBLE_EQ(l.flops(), static_cast<double>(8LL * 4 * 4 * size));  // the window's reads
  }
  ModelBuilder m;
  m.input("x", {1, 8, 4, 4});
  m.node("LRN", {"x"}, {"y"}, "lrn");  // no size
  m.output("y");
  EXPECT_NE(import_error(m, "synthetic_lrn_nosize.onnx").find("attribute 'size'"),
            std::string::npos);
}

TEST(OnnxImport, DepthToSpaceAndSpaceToDepthAreCopiesAtTheOutput) {
  ModelBuilder m;
  m.input("x", {1, 8, 2, 3});
  auto& d = m.node("DepthToSpace", {"x"}, {"d"}, "d2s");
  ModelBuilder::attr(d, "blocksize", std::int64_t{2});
  auto& s = m.node("SpaceToDepth", {"d"}, {"s"}, "s2d");
  ModelBuilder::attr(s, "blocksize", std::int64_t{2});
  m.node("Relu", {"d"}, {"r"}, "relu_d");
  m.node("Relu", {"s"}, {"y"}, "relu_s");
  m.output("y");
  m.output("r");
  const ImportResult r = import_onnx(m.write("synthetic_depthtospace.onnx"));
  ASSERT_EQ(r.network.layers.size(), 4U);
  EXPECT_EQ(r.network.layers[0].op, Op::kChannelShuffle);
  EXPECT_EQ(r.network.layers[0].output_elements(), 8 * 2 * 3);
  EXPECT_EQ(r.network.layers[2].c_in, 2);  // relu of DepthToSpace's [1,2,4,6]
  EXPECT_EQ(r.network.layers[2].h_in, 4);
  EXPECT_EQ(r.network.layers[2].w_in, 6);
  EXPECT_EQ(r.network.layers[3].c_in, 8);  // back to [1,8,2,3]
  EXPECT_EQ(r.network.layers[3].h_in, 2);

  ModelBuilder bad;
  bad.input("x", {1, 6, 2, 2});
  auto& b = bad.node("DepthToSpace", {"x"}, {"y"}, "d2s");
  ModelBuilder::attr(b, "blocksize", std::int64_t{2});
  bad.output("y");
  EXPECT_NE(import_error(bad, "synthetic_bad_d2s.onnx").find("not divisible by blocksize"),
            std::string::npos);
}

TEST(OnnxImport, ExpandAndTileAreCopiesAtTheOutputSize) {
  ModelBuilder m;
  m.input("x", {1, 4, 1, 1});
  m.ints("shape", {1, 4, 8, 8});
  m.ints("repeats", {1, 2, 1, 2});
  m.node("Expand", {"x", "shape"}, {"e"}, "expand");
  m.node("Tile", {"e", "repeats"}, {"t"}, "tile");
  m.node("Relu", {"t"}, {"y"}, "after");
  m.output("y");
  const ImportResult r = import_onnx(m.write("synthetic_expand_tile.onnx"));
  ASSERT_EQ(r.network.layers.size(), 3U);
  EXPECT_EQ(r.network.layers[0].op, Op::kChannelShuffle);
  EXPECT_EQ(r.network.layers[0].output_elements(), 4 * 8 * 8);
  EXPECT_EQ(r.network.layers[1].op, Op::kChannelShuffle);
  EXPECT_EQ(r.network.layers[1].output_elements(), 8 * 8 * 16);
  EXPECT_EQ(r.network.layers[2].c_in, 8);
  EXPECT_EQ(r.network.layers[2].w_in, 16);

  ModelBuilder zero;
  zero.input("x", {1, 4, 2, 2});
  zero.ints("repeats", {1, 0, 1, 1});
  zero.node("Tile", {"x", "repeats"}, {"y"}, "tile");
  zero.output("y");
  EXPECT_NE(import_error(zero, "synthetic_tile_zero.onnx").find("expected values from 1"),
            std::string::npos);
}

TEST(OnnxImport, ReduceMaxAndArgMaxAreMaxPoolsOverTheReducedAxes) {
  ModelBuilder m;
  m.input("x", {2, 5, 4, 6});
  auto& rm = m.node("ReduceMax", {"x"}, {"gm"}, "reduce_max");
  ModelBuilder::attr(rm, "axes", {2, 3});
  auto& am = m.node("ArgMax", {"x"}, {"am"}, "argmax");
  ModelBuilder::attr(am, "axis", std::int64_t{1});
  ModelBuilder::attr(am, "keepdims", std::int64_t{0});
  m.node("Cast", {"am"}, {"y"}, "cast");
  m.output("gm");
  m.output("y");
  const ImportResult r = import_onnx(m.write("synthetic_reduce_max.onnx"));
  ASSERT_EQ(r.network.layers.size(), 3U);
  const Layer& g = r.network.layers[0];  // as GlobalMaxPool
  EXPECT_EQ(g.op, Op::kMaxPool);
  EXPECT_EQ(g.c_in, 5);
  EXPECT_EQ(g.kernel_h, 4);
  EXPECT_EQ(g.kernel_w, 6);
  EXPECT_EQ(g.output_elements(), 2 * 5);
  const Layer& a = r.network.layers[1];  // the channels as the window
  EXPECT_EQ(a.op, Op::kMaxPool);
  EXPECT_EQ(a.batch, 2);
  EXPECT_EQ(a.h_in, 5);
  EXPECT_EQ(a.kernel_h, 5);
  EXPECT_EQ(a.c_in, 24);
  EXPECT_EQ(a.output_elements(), 2 * 4 * 6);
  EXPECT_DOUBLE_EQ(a.flops(), 2.0 * 5 * 4 * 6);  // every element read once
  EXPECT_EQ(r.network.layers[2].input_elements(), 2 * 4 * 6);

  ImportOptions skip;
  skip.skip_unsupported = true;
  ModelBuilder gap;
  gap.input("x", {2, 5, 4, 6});
  auto& n = gap.node("ReduceMin", {"x"}, {"y"}, "reduce_min");
  ModelBuilder::attr(n, "axes", {1, 3});
  gap.output("y");
  const ImportResult s = import_onnx(gap.write("synthetic_reduce_gap.onnx"), skip);
  ASSERT_EQ(s.skipped.size(), 1U);
  EXPECT_NE(s.skipped[0].reason.find("not contiguous"), std::string::npos);
}

TEST(OnnxImport, QuantizedConvIsAnInt8ConvRowAndQdqAreCasts) {
  for (const bool fp16 : {false, true}) {
    ModelBuilder m;
    m.input("x", {1, 4, 8, 8});
    m.floats("s", {0.1F});
    m.weight("w", {8, 4, 3, 3});
    m.node("QuantizeLinear", {"x", "s"}, {"q"}, "quant");
    m.node("QLinearConv", {"q", "s", "z", "w", "s", "z", "s", "z"}, {"c"}, "qconv");
    m.node("DequantizeLinear", {"c", "s"}, {"y"}, "dequant");
    m.ints("z", {0});
    m.output("y");
    ImportOptions options;
    if (fp16) options.dtype = DType::kFp16;
    const ImportResult r = import_onnx(m.write("synthetic_qlinearconv.onnx"), options);
    ASSERT_EQ(r.network.layers.size(), 3U);
    EXPECT_EQ(r.network.layers[0].op, Op::kRelu);
    EXPECT_EQ(r.network.layers[0].input_elements(), 4 * 8 * 8);
    const Layer& c = r.network.layers[1];
    EXPECT_EQ(c.op, Op::kConv2d);
    EXPECT_EQ(c.dtype, fp16 ? DType::kFp16 : DType::kInt8);  // --precision overrides
    EXPECT_EQ(c.c_out, 8);
    EXPECT_EQ(c.macs(), 8 * 6 * 6 * 4 * 3 * 3);
    EXPECT_FALSE(c.bias);
    EXPECT_EQ(r.network.layers[2].op, Op::kRelu);
    EXPECT_EQ(r.network.layers[2].input_elements(), 8 * 6 * 6);
  }
}

TEST(OnnxImport, DynamicBatchTakesOptionBatch) {
  const fs::path path = small_cnn(-1).write("synthetic_dynamic.onnx");
  EXPECT_EQ(import_onnx(path).network.batch, 1);  // default --batch
  ImportOptions options;
  options.batch = 4;
  const Network net = import_onnx(path, options).network;
  EXPECT_EQ(net.batch, 4);
  for (const auto& layer : net.layers) EXPECT_EQ(layer.batch, 4) << layer.name;
  EXPECT_EQ(net.macs(), 4 * (442368 + 589824 + 32768 + 240));
}

TEST(OnnxImport, DynamicBatchWithoutDimParam) {
  const fs::path path = small_cnn(0).write("synthetic_dynamic0.onnx");
  ImportOptions options;
  options.batch = 2;
  EXPECT_EQ(import_onnx(path, options).network.layers.back().batch, 2);
}

TEST(OnnxImport, ExplicitBatchKeptUnlessGiven) {
  const fs::path path = small_cnn(2).write("synthetic_batch2.onnx");
  ImportOptions options;
  options.batch = 8;
  EXPECT_EQ(import_onnx(path, options).network.batch, 2);
  options.batch_given = true;
  const Network net = import_onnx(path, options).network;
  EXPECT_EQ(net.batch, 8);
  EXPECT_EQ(net.layers.back().batch, 8);
}

TEST(OnnxImport, DynamicSpatialSizeNeedsInputSize) {
  ModelBuilder m;
  m.input("x", {1, 3, 0, 0});
  m.weight("w", {8, 3, 3, 3});
  m.node("Conv", {"x", "w"}, {"y"}, "conv");
  m.output("y");
  const fs::path path = m.write("synthetic_dynamic_hw.onnx");
  try {
    (void)import_onnx(path);
    FAIL() << "expected InputError";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find(path.string()), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("dimension 2"), std::string::npos) << e.what();
  }
  ImportOptions options;
  options.input_h = 20;
  options.input_w = 10;
  const Network net = import_onnx(path, options).network;
  EXPECT_EQ(net.layers[0].h_out(), 18);
  EXPECT_EQ(net.layers[0].w_out(), 8);
}

TEST(OnnxImport, AsymmetricPadsWithSymmetricEquivalent) {
  ModelBuilder m;
  m.input("x", {1, 4, 8, 8});
  m.weight("w", {4, 4, 3, 3});
  auto& c = m.node("Conv", {"x", "w"}, {"y"}, "conv");
  ModelBuilder::attr(c, "strides", {2, 2});
  ModelBuilder::attr(c, "pads", {0, 0, 1, 1});  // TF-style SAME for stride 2: out 4
  m.output("y");
  const ImportResult r = import_onnx(m.write("synthetic_asym.onnx"));
  EXPECT_TRUE(r.warnings.empty());
  EXPECT_EQ(r.network.layers[0].pad_h, 1);
  EXPECT_EQ(r.network.layers[0].h_out(), 4);
}

TEST(OnnxImport, AsymmetricPadsWithoutEquivalentAreKeptAsAPair) {
  ModelBuilder m;
  m.input("x", {1, 4, 8, 8});
  m.weight("w", {4, 4, 3, 3});
  auto& c = m.node("Conv", {"x", "w"}, {"y"}, "conv");
  ModelBuilder::attr(c, "pads", {0, 0, 3, 3});  // out 9: no symmetric pad gives 9
  m.output("y");
  const ImportResult r = import_onnx(m.write("synthetic_asym_pair.onnx"));
  EXPECT_TRUE(r.warnings.empty());
  const Layer& l = r.network.layers[0];
  EXPECT_EQ(l.pad_h, 0);
  EXPECT_EQ(l.pad_bottom(), 3);
  EXPECT_EQ(l.pad_right(), 3);
  EXPECT_EQ(l.h_out(), 9);
  EXPECT_EQ(l.w_out(), 9);
}

TEST(OnnxImport, AutoPadSameUpper) {
  ModelBuilder m;
  m.input("x", {1, 4, 7, 7});
  m.weight("w", {4, 4, 3, 3});
  auto& c = m.node("Conv", {"x", "w"}, {"y"}, "conv");
  ModelBuilder::attr(c, "strides", {2, 2});
  ModelBuilder::attr_s(c, "auto_pad", "SAME_UPPER");
  m.output("y");
  const Network net = load_onnx(m.write("synthetic_same.onnx"));
  EXPECT_EQ(net.layers[0].h_out(), 4);
  EXPECT_EQ(net.layers[0].pad_h, 1);
}

TEST(OnnxImport, ClipAsRelu6FromInputsAndAttributes) {
  ModelBuilder m13;
  m13.input("x", {1, 8, 4, 4});
  m13.floats("lo", {0.0F});
  m13.floats("hi", {6.0F});
  m13.node("Clip", {"x", "lo", "hi"}, {"y"}, "clip");
  m13.output("y");
  const ImportResult r13 = import_onnx(m13.write("synthetic_clip13.onnx"));
  EXPECT_EQ(r13.network.layers[0].op, Op::kRelu6);
  EXPECT_TRUE(r13.warnings.empty());

  ModelBuilder m6(6);
  m6.input("x", {1, 8, 4, 4});
  auto& c = m6.node("Clip", {"x"}, {"y"}, "clip");
  ModelBuilder::attr_f(c, "min", 0.0F);
  ModelBuilder::attr_f(c, "max", 6.0F);
  m6.output("y");
  EXPECT_EQ(load_onnx(m6.write("synthetic_clip6.onnx")).layers[0].op, Op::kRelu6);

  ModelBuilder other;
  other.input("x", {1, 8, 4, 4});
  other.floats("lo", {-1.0F});
  other.floats("hi", {1.0F});
  other.node("Clip", {"x", "lo", "hi"}, {"y"}, "clamp");
  other.output("y");
  const ImportResult r = import_onnx(other.write("synthetic_clip_other.onnx"));
  EXPECT_EQ(r.network.layers[0].op, Op::kRelu6);
  ASSERT_EQ(r.warnings.size(), 1u);
  EXPECT_NE(r.warnings[0].find("Clip(min=-1, max=1)"), std::string::npos) << r.warnings[0];
}

// Shape -> Gather -> Unsqueeze -> Concat -> Reshape: the shape arithmetic is not a layer; the
// reshape target comes from ONNX's data propagation.
TEST(OnnxImport, RuntimeReshapeThroughShapeChain) {
  ModelBuilder m;
  m.input("x", {-1, 16, 4, 4});
  m.ints("zero", {0});
  m.ints("minus_one", {-1});
  m.ints("axes0", {0});
  m.weight("w", {256, 10});
  m.node("Relu", {"x"}, {"r"}, "relu");
  m.node("Shape", {"r"}, {"s"}, "shape");
  auto& g = m.node("Gather", {"s", "zero"}, {"n"}, "gather");
  ModelBuilder::attr(g, "axis", std::int64_t{0});
  auto& cat = m.node("Concat", {"n", "minus_one"}, {"target"}, "target");
  ModelBuilder::attr(cat, "axis", std::int64_t{0});
  m.node("Reshape", {"r", "target"}, {"flat"}, "reshape");
  m.node("MatMul", {"flat", "w"}, {"y"}, "fc");
  m.output("y");
  ImportOptions options;
  options.batch = 3;
  const ImportResult r = import_onnx(m.write("synthetic_reshape.onnx"), options);
  ASSERT_EQ(r.network.layers.size(), 3u);
  EXPECT_EQ(r.network.layers[1].name, "reshape");
  EXPECT_EQ(r.network.layers[1].op, Op::kFlatten);
  const Layer& fc = r.network.layers[2];
  EXPECT_EQ(fc.op, Op::kLinear);
  EXPECT_EQ(fc.batch, 3);
  EXPECT_EQ(fc.c_in, 256);
  EXPECT_EQ(fc.c_out, 10);
  EXPECT_EQ(fc.macs(), 3 * 256 * 10);
}

TEST(OnnxImport, ConstantReshapeTarget) {
  ModelBuilder m;
  m.input("x", {2, 8, 2, 2});
  m.ints("target", {0, -1});
  m.weight("w", {32, 5});
  m.node("Reshape", {"x", "target"}, {"flat"}, "reshape");
  m.node("MatMul", {"flat", "w"}, {"y"}, "fc");
  m.output("y");
  const Network net = load_onnx(m.write("synthetic_reshape_const.onnx"));
  ASSERT_EQ(net.layers.size(), 2u);
  EXPECT_EQ(net.layers[1].batch, 2);
  EXPECT_EQ(net.layers[1].c_in, 32);
}

TEST(OnnxImport, FoldsMatMulBiasAndSigmoidMul) {
  ModelBuilder m(17);  // LayerNormalization needs opset 17
  m.input("x", {1, 5, 16});
  m.weight("w", {16, 32});
  m.weight("b", {32});
  m.node("MatMul", {"x", "w"}, {"mm"}, "proj");
  m.node("Add", {"mm", "b"}, {"h"}, "proj_bias");
  m.node("Sigmoid", {"h"}, {"s"}, "act");
  m.node("Mul", {"h", "s"}, {"y"}, "act_mul");
  m.node("LayerNormalization", {"y", "w_ln", "b_ln"}, {"z"}, "ln");
  m.weight("w_ln", {32});
  m.weight("b_ln", {32});
  m.output("z");
  const ImportResult r = import_onnx_bytes(m.bytes(), "synthetic_fold.onnx");
  ASSERT_EQ(r.network.layers.size(), 3u);
  const Layer& fc = r.network.layers[0];
  EXPECT_EQ(fc.name, "proj");
  EXPECT_EQ(fc.op, Op::kLinear);
  EXPECT_TRUE(fc.bias);
  EXPECT_EQ(fc.batch, 1);
  EXPECT_EQ(fc.h_in, 5);
  EXPECT_EQ(fc.macs(), 5 * 16 * 32);
  EXPECT_EQ(fc.params(), 16 * 32 + 32);
  EXPECT_EQ(r.network.layers[1].op, Op::kSilu);
  EXPECT_EQ(r.network.layers[1].input_elements(), 5 * 32);
  const Layer& ln = r.network.layers[2];
  EXPECT_EQ(ln.op, Op::kLayerNorm);
  EXPECT_EQ(ln.c_in, 32);
  EXPECT_EQ(ln.h_in, 5);
  EXPECT_EQ(ln.params(), 64);
}

ModelBuilder with_unsupported(const std::string& op) {
  ModelBuilder m;
  m.input("x", {1, 4, 6, 6});
  m.node(op, {"x"}, {"e"}, "weird");
  m.node("Relu", {"e"}, {"y"}, "relu");
  m.output("y");
  return m;
}

TEST(OnnxImport, UnsupportedOperatorIsInputErrorNamingNode) {
  const fs::path path = with_unsupported("Hardmax").write("synthetic_unsupported.onnx");
  try {
    (void)import_onnx(path);
    FAIL() << "expected InputError";
  } catch (const InputError& e) {
    const std::string what = e.what();
    EXPECT_EQ(what.rfind(path.string() + ": node 'weird' (op_type Hardmax): unsupported operator "
                                         "(expected one of: ",
                         0),
              0u)
        << what;
    EXPECT_NE(what.find("Conv"), std::string::npos);
    EXPECT_EQ(what.find('\n'), std::string::npos);
  }
}

TEST(OnnxImport, SkipUnsupportedKeepsGoingWithInferredShapes) {
  ImportOptions options;
  options.skip_unsupported = true;
  const ImportResult r =
      import_onnx(with_unsupported("Hardmax").write("synthetic_unsupported.onnx"), options);
  ASSERT_EQ(r.skipped.size(), 1u);
  EXPECT_EQ(r.skipped[0].name, "weird");
  EXPECT_EQ(r.skipped[0].op_type, "Hardmax");
  EXPECT_EQ(r.skipped[0].position, 0u);
  EXPECT_NE(r.skipped[0].reason.find("unsupported operator"), std::string::npos);
  ASSERT_EQ(r.network.layers.size(), 1u);
  EXPECT_EQ(r.network.layers[0].op, Op::kRelu);
  EXPECT_EQ(r.network.layers[0].input_elements(), 4 * 6 * 6);
}

TEST(OnnxImport, SkipUnknownOperatorAlsoSkipsItsUnknownShapedConsumers) {
  ImportOptions options;
  options.skip_unsupported = true;
  const ImportResult r =
      import_onnx(with_unsupported("NoSuchOp").write("synthetic_unknown.onnx"), options);
  ASSERT_EQ(r.skipped.size(), 2u);
  EXPECT_EQ(r.skipped[1].name, "relu");
  EXPECT_NE(r.skipped[1].reason.find("follows skipped node 'weird'"), std::string::npos)
      << r.skipped[1].reason;
}

void expect_input_error_naming(const fs::path& path, const std::string& fragment) {
  try {
    (void)import_onnx(path);
    FAIL() << "expected InputError for " << path;
  } catch (const InputError& e) {
    const std::string what = e.what();
    EXPECT_EQ(what.rfind(path.string() + ": ", 0), 0u) << what;
    EXPECT_NE(what.find(fragment), std::string::npos) << what;
  }
}

TEST(OnnxImport, MalformedFilesAreInputErrors) {
  const fs::path dir =
      fs::temp_directory_path() / ("cnnperf_onnx_bad_" + std::to_string(::getpid()));
  fs::create_directories(dir);
  std::mt19937 rng(12345);
  std::string noise(4096, '\0');
  for (auto& c : noise) c = static_cast<char>(rng() & 0xFF);
  std::ofstream(dir / "random.onnx", std::ios::binary) << noise;
  expect_input_error_naming(dir / "random.onnx", "not a valid ONNX model");

  const std::string good = small_cnn().bytes();
  std::ofstream(dir / "truncated.onnx", std::ios::binary) << good.substr(0, good.size() / 2);
  expect_input_error_naming(dir / "truncated.onnx", "not a valid ONNX model");

  std::ofstream(dir / "empty.onnx", std::ios::binary).flush();
  expect_input_error_naming(dir / "empty.onnx", "empty");

  std::ofstream(dir / "text.onnx") << "this is not a model\n";
  expect_input_error_naming(dir / "text.onnx", "ONNX");

  expect_input_error_naming(dir / "missing.onnx", "no such file");
  fs::create_directories(dir / "folder.onnx");
  expect_input_error_naming(dir / "folder.onnx", "is a directory");
  fs::remove_all(dir);
}

// Every prefix of a valid model either imports or is an InputError: never a crash or another
// exception type (protobuf accepts some prefixes that end on a field boundary).
TEST(OnnxImport, TruncationsNeverEscapeAsOtherErrors) {
  const std::string good = small_cnn().bytes();
  int rejected = 0;
  for (std::size_t size = 0; size < good.size(); size += 37) {
    try {
      (void)import_onnx_bytes(std::string_view(good).substr(0, size), "cut.onnx");
    } catch (const InputError& e) {
      ++rejected;
      EXPECT_EQ(std::string(e.what()).rfind("cut.onnx: ", 0), 0u) << e.what();
    }
  }
  EXPECT_GT(rejected, 0);
}

// ---- Real ONNX files: the ONNX project's backend node tests, as packaged by Debian ----

fs::path onnx_testdata_dir() {
  for (const char* dir :
       {"/usr/share/libonnx-testdata/data", "/usr/share/onnx/backend/test/data"}) {
    if (fs::is_directory(fs::path(dir) / "node")) return dir;
  }
  return {};
}

std::vector<std::int64_t> expected_output_dims(const fs::path& test_dir) {
  std::ifstream in(test_dir / "test_data_set_0" / "output_0.pb", std::ios::binary);
  onnx::TensorProto tensor;
  if (!in || !tensor.ParseFromIstream(&in)) return {};
  return {tensor.dims().begin(), tensor.dims().end()};
}

// The output dims of a layer as the ONNX tensor of that rank would have them.
std::vector<std::int64_t> layer_output_dims(const Layer& l, std::size_t rank) {
  const std::int64_t c =
      (op_class(l.op) == OpClass::kConv || op_class(l.op) == OpClass::kGemm) ? l.c_out : l.c_in;
  if (rank == 4) return {l.batch, c, l.h_out(), l.w_out()};
  if (rank == 3) return {l.batch, c, l.w_out()};
  if (rank == 2) return {l.batch, c};
  if (rank == 1) return {c};
  return {};
}

struct Imported {
  ImportResult result;
  std::vector<std::int64_t> dims;  // the test's expected output dims
};

// Imports <testdata>/<name>/model.onnx and reads its expected output dims; nullopt to skip.
std::optional<Imported> import_testdata(const std::string& name) {
  const fs::path root = onnx_testdata_dir();
  if (root.empty()) return std::nullopt;
  const fs::path dir = root / name;
  Imported out;
  out.dims = expected_output_dims(dir);
  out.result = import_onnx(dir / "model.onnx");
  return out;
}

std::int64_t element_count(const std::vector<std::int64_t>& dims) {
  std::int64_t elements = 1;
  for (const auto d : dims) elements *= d;
  return elements;
}

class OnnxTestdata : public ::testing::TestWithParam<std::string> {};

TEST_P(OnnxTestdata, LastLayerShapeMatchesExpectedOutput) {
  const auto imported = import_testdata(GetParam());
  if (!imported) {
    // make deps installs the package, so in CI (CI=true) its absence is a failure.
    if (std::getenv("CI") != nullptr) FAIL() << "libonnx-testdata is missing in CI";
    GTEST_SKIP() << "libonnx-testdata is not installed (make deps installs it)";
  }
  const auto& [r, dims] = *imported;
  ASSERT_FALSE(dims.empty()) << "cannot read the expected output of " << GetParam();
  ASSERT_FALSE(r.network.layers.empty());
  EXPECT_TRUE(r.skipped.empty());
  EXPECT_TRUE(r.warnings.empty()) << r.warnings.front();
  const Layer& last = r.network.layers.back();
  if (last.op == Op::kFlatten) {
    // A view row describes its input; only the element count carries over.
    EXPECT_EQ(last.input_elements(), element_count(dims));
  } else {
    EXPECT_EQ(layer_output_dims(last, dims.size()), dims) << "layer " << last.name;
    EXPECT_EQ(last.output_elements(), element_count(dims));
  }
}

std::vector<std::int64_t> model_input_dims(const std::string& name) {
  std::ifstream in(onnx_testdata_dir() / name / "model.onnx", std::ios::binary);
  onnx::ModelProto model;
  if (!in || !model.ParseFromIstream(&in) || model.graph().input_size() == 0) return {};
  std::vector<std::int64_t> dims;
  for (const auto& d : model.graph().input(0).type().tensor_type().shape().dim()) {
    dims.push_back(d.dim_value());
  }
  return dims;
}

// The ONNX project's node tests of the CNN operators mapped to another op's row: each imports
// to one row of the expected op that covers the expected output. A ConvTranspose row is the
// convolution whose backward-data pass it runs: its input is the expected output and its
// output the model's input.
class OnnxTestdataCnnOps : public ::testing::TestWithParam<std::pair<std::string, Op>> {};

TEST_P(OnnxTestdataCnnOps, OneRowCoveringTheExpectedOutput) {
  const auto& [name, op] = GetParam();
  const auto imported = import_testdata(name);
  if (!imported) {
    if (std::getenv("CI") != nullptr) FAIL() << "libonnx-testdata is missing in CI";
    GTEST_SKIP() << "libonnx-testdata is not installed (make deps installs it)";
  }
  const auto& [r, dims] = *imported;
  ASSERT_FALSE(dims.empty()) << "cannot read the expected output of " << name;
  EXPECT_TRUE(r.skipped.empty());
  ASSERT_EQ(r.network.layers.size(), 1U);
  const Layer& l = r.network.layers[0];
  EXPECT_EQ(l.op, op);
  if (name.find("convtranspose") != std::string::npos) {
    EXPECT_EQ(l.input_elements(), element_count(dims));
    EXPECT_EQ(l.output_elements(), element_count(model_input_dims(name)));
  } else {
    EXPECT_EQ(l.output_elements(), element_count(dims));
  }
  const bool int8 =
      name.find("qlinear") != std::string::npos || name.find("integer") != std::string::npos;
  EXPECT_EQ(l.dtype, int8 ? DType::kInt8 : DType::kFp32);
}

INSTANTIATE_TEST_SUITE_P(
    NodeTests, OnnxTestdataCnnOps,
    ::testing::Values(std::pair{"node/test_convtranspose", Op::kConv2d},
                      std::pair{"node/test_convtranspose_1d", Op::kConv2d},
                      std::pair{"node/test_convtranspose_autopad_same", Op::kConv2d},
                      std::pair{"node/test_convtranspose_dilations", Op::kConv2d},
                      std::pair{"node/test_convtranspose_kernel_shape", Op::kConv2d},
                      std::pair{"node/test_convtranspose_output_shape", Op::kConv2d},
                      std::pair{"node/test_convtranspose_pad", Op::kConv2d},
                      std::pair{"node/test_convtranspose_pads", Op::kConv2d},
                      std::pair{"node/test_convtranspose_with_kernel", Op::kConv2d},
                      std::pair{"node/test_qlinearconv", Op::kConv2d},
                      std::pair{"node/test_convinteger_with_padding", Op::kConv2d},
                      std::pair{"node/test_qlinearmatmul_2D", Op::kLinear},
                      std::pair{"node/test_matmulinteger", Op::kLinear},
                      std::pair{"node/test_quantizelinear", Op::kRelu},
                      std::pair{"node/test_dequantizelinear", Op::kRelu},
                      std::pair{"node/test_instancenorm_example", Op::kLayerNorm},
                      std::pair{"node/test_instancenorm_epsilon", Op::kLayerNorm},
                      std::pair{"node/test_lrn", Op::kAvgPool},
                      std::pair{"node/test_lrn_default", Op::kAvgPool},
                      std::pair{"node/test_depthtospace_example", Op::kChannelShuffle},
                      std::pair{"node/test_depthtospace_crd_mode", Op::kChannelShuffle},
                      std::pair{"node/test_spacetodepth_example", Op::kChannelShuffle},
                      std::pair{"node/test_reduce_max_keepdims_example", Op::kMaxPool},
                      std::pair{"node/test_reduce_max_do_not_keepdims_example", Op::kMaxPool},
                      std::pair{"node/test_reduce_max_default_axes_keepdim_example", Op::kMaxPool},
                      std::pair{"node/test_reduce_min_negative_axes_keepdims_example",
                                Op::kMaxPool},
                      std::pair{"node/test_argmax_keepdims_example", Op::kMaxPool},
                      std::pair{"node/test_argmax_no_keepdims_example", Op::kMaxPool},
                      std::pair{"node/test_argmin_default_axis_example", Op::kMaxPool},
                      std::pair{"node/test_reduce_mean_keepdims_example", Op::kAvgPool}),
    [](const ::testing::TestParamInfo<std::pair<std::string, Op>>& info) {
      return info.param.first.substr(info.param.first.find("/test_") + 6);
    });

// SAME padding with an even kernel and stride 1 pads 1 on one side only: no symmetric pad
// gives ONNX's output size, so the importer keeps ONNX's pair (pad_h_end/pad_w_end).
class OnnxTestdataInexactPads : public ::testing::TestWithParam<std::string> {};

TEST_P(OnnxTestdataInexactPads, AsymmetricPairGivesOnnxOutput) {
  const auto imported = import_testdata(GetParam());
  if (!imported) {
    // make deps installs the package, so in CI (CI=true) its absence is a failure.
    if (std::getenv("CI") != nullptr) FAIL() << "libonnx-testdata is missing in CI";
    GTEST_SKIP() << "libonnx-testdata is not installed (make deps installs it)";
  }
  const auto& [r, dims] = *imported;
  ASSERT_EQ(dims.size(), 4u);
  ASSERT_EQ(r.network.layers.size(), 1u);
  const Layer& l = r.network.layers[0];
  EXPECT_EQ(l.h_out(), dims[2]);
  EXPECT_EQ(l.w_out(), dims[3]);
  EXPECT_NE(l.pad_bottom(), l.pad_h);
  EXPECT_TRUE(r.warnings.empty());
}

INSTANTIATE_TEST_SUITE_P(SamePadding, OnnxTestdataInexactPads,
                         ::testing::Values("node/test_maxpool_2d_same_lower",
                                           "node/test_maxpool_2d_same_upper",
                                           "node/test_averagepool_2d_same_lower",
                                           "node/test_averagepool_2d_same_upper"),
                         [](const ::testing::TestParamInfo<std::string>& info) {
                           return info.param.substr(info.param.find("/test_") + 6);
                         });

INSTANTIATE_TEST_SUITE_P(
    NodeTests, OnnxTestdata,
    ::testing::Values(
        "node/test_basic_conv_with_padding", "node/test_basic_conv_without_padding",
        "node/test_conv_with_strides_padding", "node/test_conv_with_strides_no_padding",
        "node/test_conv_with_strides_and_asymmetric_padding", "node/test_conv_with_autopad_same",
        "node/test_maxpool_2d_default", "node/test_maxpool_2d_ceil",
        "node/test_maxpool_2d_dilations", "node/test_maxpool_2d_pads",
        "node/test_maxpool_2d_precomputed_pads", "node/test_maxpool_2d_precomputed_same_upper",
        "node/test_maxpool_2d_precomputed_strides", "node/test_maxpool_2d_strides",
        "node/test_maxpool_1d_default", "node/test_averagepool_2d_default",
        "node/test_averagepool_2d_ceil", "node/test_averagepool_2d_pads",
        "node/test_averagepool_2d_precomputed_pads",
        "node/test_averagepool_2d_precomputed_same_upper",
        "node/test_averagepool_2d_precomputed_strides", "node/test_averagepool_2d_strides",
        "node/test_globalaveragepool", "node/test_globalmaxpool", "node/test_gemm_transposeB",
        "node/test_gemm_default_vector_bias", "node/test_matmul_2d", "node/test_relu",
        "node/test_sigmoid", "node/test_tanh", "node/test_hardswish", "node/test_hardsigmoid",
        "node/test_batchnorm_example", "node/test_concat_2d_axis_1", "node/test_flatten_axis1",
        "node/test_softmax_axis_1", "node/test_sum_two_inputs", "node/test_add",
        "node/test_mul_bcast"),
    [](const ::testing::TestParamInfo<std::string>& info) {
      return info.param.substr(info.param.find("/test_") + 6);
    });

INSTANTIATE_TEST_SUITE_P(
    PytorchConverted, OnnxTestdata,
    ::testing::Values(
        "pytorch-converted/test_Conv2d", "pytorch-converted/test_Conv2d_depthwise_strided",
        "pytorch-converted/test_Conv2d_dilated", "pytorch-converted/test_Conv2d_groups",
        "pytorch-converted/test_Conv2d_padding", "pytorch-converted/test_Conv2d_strided",
        "pytorch-converted/test_Conv1d_stride", "pytorch-converted/test_MaxPool2d",
        "pytorch-converted/test_MaxPool2d_stride_padding_dilation",
        "pytorch-converted/test_AvgPool2d_stride", "pytorch-converted/test_BatchNorm2d_eval",
        "pytorch-converted/test_Linear", "pytorch-converted/test_ReLU",
        "pytorch-operator/test_operator_conv", "pytorch-operator/test_operator_maxpool",
        "pytorch-operator/test_operator_flatten"),
    [](const ::testing::TestParamInfo<std::string>& info) {
      return info.param.substr(info.param.find("/test_") + 6);
    });

}  // namespace
}  // namespace cnnperf
