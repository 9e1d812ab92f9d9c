// SPDX-License-Identifier: Apache-2.0
// ONNX model import: walks the graph in order, infers every activation's shape from the
// graph inputs and the initializers, and maps each node to a Layer (docs/model-import.md).
// Built as the module libcnnperf_onnx.so (onnx_module.hpp).
#include <onnx/defs/schema.h>
#include <onnx/onnx_pb.h>
#include <onnx/shape_inference/implementation.h>

#include <spdlog/spdlog.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <functional>
#include <limits>
#include <mutex>
#include <numeric>
#include <unordered_map>
#include <unordered_set>
#include <utility>

#include "cnnperf/common/error.hpp"
#include "cnnperf/common/io.hpp"
#include "cnnperf/model/network_io.hpp"
#include "onnx_module.hpp"

namespace cnnperf {

namespace {

using Shape = std::vector<std::int64_t>;

std::string shape_text(const Shape& shape) {
  std::string out = "[";
  for (std::size_t i = 0; i < shape.size(); ++i) {
    if (i) out += ',';
    out += std::to_string(shape[i]);
  }
  return out + "]";
}

std::int64_t product(const Shape& shape, std::size_t begin, std::size_t end) {
  std::int64_t p = 1;
  for (std::size_t i = begin; i < end && i < shape.size(); ++i) p *= shape[i];
  return p;
}

// ONNX 1.12's Gemm rule at opset 6 reads A's and B's dims by transA/transB without checking
// their ranks (a rank-1 B is a SIGSEGV inside libonnx). Importer::check_gemm_ranks refuses what
// the graph inputs and initializers show; a tensor an earlier node computes (a Reshape to rank
// 1) has its shape only inside the inference, so every Gemm rule is wrapped, once, with the rank
// check Gemm 7 onwards makes itself: such a node fails its inference and the walk refuses it.
void guard_gemm_inference() {
  static std::once_flag once;
  std::call_once(once, [] {
    const auto& ranges = onnx::OpSchemaRegistry::DomainToVersionRange::Instance().Map();
    const int newest = ranges.at(onnx::ONNX_DOMAIN).second;
    for (int version = 1; version <= newest; ++version) {
      const onnx::OpSchema* schema = onnx::OpSchemaRegistry::Schema("Gemm", version);
      if (schema == nullptr || schema->since_version() != version ||
          !schema->has_type_and_shape_inference_function()) {
        continue;
      }
      // The registry hands out const pointers to the schemas it owns (not const objects).
      auto* owned = const_cast<onnx::OpSchema*>(schema);
      owned->TypeAndShapeInferenceFunction(
          [rule = schema->GetTypeAndShapeInferenceFunction()](onnx::InferenceContext& ctx) {
            onnx::checkInputRank(ctx, 0, 2);
            onnx::checkInputRank(ctx, 1, 2);
            rule(ctx);
          });
    }
  });
}

// A node the importer cannot model (skippable with ImportOptions::skip_unsupported).
struct Unsupported {
  std::string reason;
};

// Generic placement of a tensor in the Layer's (batch, c, h, w): NCHW for rank 4, (N, C) for
// rank 2, (N, C, L) as h = 1, w = L for rank 3, trailing dims folded into w beyond rank 4.
// Pointwise costs only depend on the element count, which every placement preserves.
void place(Layer& layer, const Shape& shape) {
  layer.batch = shape.size() >= 2 ? shape[0] : 1;
  layer.c_in = shape.empty() ? 1 : (shape.size() == 1 ? shape[0] : shape[1]);
  layer.h_in = shape.size() >= 4 ? shape[2] : 1;
  layer.w_in =
      shape.size() == 3 ? shape[2] : (shape.size() >= 4 ? product(shape, 3, shape.size()) : 1);
  layer.c_out = layer.c_in;
}

// Output size of a sliding window in ONNX's definition.
std::int64_t onnx_window_out(std::int64_t in, std::int64_t kernel, std::int64_t stride,
                             std::int64_t dilation, std::int64_t pad_begin, std::int64_t pad_end,
                             bool ceil_mode) {
  const std::int64_t span = in + pad_begin + pad_end - ((kernel - 1) * dilation + 1);
  if (span < 0) return 0;
  return (ceil_mode ? (span + stride - 1) / stride : span / stride) + 1;
}

// Small constant tensors (shapes, clip bounds) as doubles; nullopt for external or big data.
std::optional<std::vector<double>> tensor_values(const onnx::TensorProto& tensor) {
  constexpr std::int64_t kMaxElements = 1 << 16;
  std::int64_t count = 1;
  for (const auto d : tensor.dims()) {
    // Checked before multiplying: a hostile file's dims overflow int64 (undefined behaviour).
    if (d < 0 || (d > 0 && count > kMaxElements / d)) return std::nullopt;
    count *= d;
  }
  if (tensor.data_location() == onnx::TensorProto::EXTERNAL) return std::nullopt;
  std::vector<double> out;
  const std::string& raw = tensor.raw_data();
  auto from_raw = [&]<typename T>(T) {
    if (raw.size() != static_cast<std::size_t>(count) * sizeof(T)) return false;
    for (std::int64_t i = 0; i < count; ++i) {
      T value;
      std::memcpy(&value, raw.data() + i * sizeof(T), sizeof(T));
      out.push_back(static_cast<double>(value));
    }
    return true;
  };
  switch (tensor.data_type()) {
    case onnx::TensorProto::FLOAT:
      if (!raw.empty()) return from_raw(float{}) ? std::optional(out) : std::nullopt;
      out.assign(tensor.float_data().begin(), tensor.float_data().end());
      break;
    case onnx::TensorProto::DOUBLE:
      if (!raw.empty()) return from_raw(double{}) ? std::optional(out) : std::nullopt;
      out.assign(tensor.double_data().begin(), tensor.double_data().end());
      break;
    case onnx::TensorProto::INT64:
      if (!raw.empty()) return from_raw(std::int64_t{}) ? std::optional(out) : std::nullopt;
      for (const auto v : tensor.int64_data()) out.push_back(static_cast<double>(v));
      break;
    case onnx::TensorProto::INT32:
      if (!raw.empty()) return from_raw(std::int32_t{}) ? std::optional(out) : std::nullopt;
      for (const auto v : tensor.int32_data()) out.push_back(v);
      break;
    default: return std::nullopt;
  }
  if (static_cast<std::int64_t>(out.size()) != count) return std::nullopt;
  return out;
}

const onnx::AttributeProto* find_attribute(const onnx::NodeProto& node, std::string_view name) {
  for (const auto& attribute : node.attribute()) {
    if (attribute.name() == name) return &attribute;
  }
  return nullptr;
}

std::int64_t int_attribute(const onnx::NodeProto& node, std::string_view name,
                           std::int64_t fallback) {
  const auto* a = find_attribute(node, name);
  return a ? a->i() : fallback;
}

std::optional<float> float_attribute(const onnx::NodeProto& node, std::string_view name) {
  const auto* a = find_attribute(node, name);
  if (!a) return std::nullopt;
  return a->f();
}

std::vector<std::int64_t> ints_attribute(const onnx::NodeProto& node, std::string_view name) {
  const auto* a = find_attribute(node, name);
  if (!a) return {};
  return {a->ints().begin(), a->ints().end()};
}

std::string string_attribute(const onnx::NodeProto& node, std::string_view name,
                             const std::string& fallback) {
  const auto* a = find_attribute(node, name);
  return a ? a->s() : fallback;
}

// The operator types, by what they become.
const std::unordered_map<std::string, Op>& pointwise_ops() {
  // clang-format off
  static const std::unordered_map<std::string, Op> ops{
      {"Relu", Op::kRelu}, {"Sigmoid", Op::kSigmoid}, {"HardSigmoid", Op::kHardSigmoid},
      {"HardSwish", Op::kHardSwish}, {"Tanh", Op::kTanh}, {"Softmax", Op::kSoftmax},
      {"LogSoftmax", Op::kSoftmax}, {"Gelu", Op::kGelu}, {"Dropout", Op::kDropout},
      {"Identity", Op::kDropout},
      // Elementwise ops cnnperf has no row type of their own for, by what they cost: a read,
      // a few cheap instructions and a write (as relu), or a transcendental (as tanh). All
      // are memory-bound on a GPU.
      {"LeakyRelu", Op::kRelu}, {"ThresholdedRelu", Op::kRelu}, {"Neg", Op::kRelu},
      {"Abs", Op::kRelu}, {"Sign", Op::kRelu}, {"Floor", Op::kRelu}, {"Ceil", Op::kRelu},
      {"Round", Op::kRelu}, {"Cast", Op::kRelu}, {"Not", Op::kRelu}, {"Sqrt", Op::kRelu},
      {"Reciprocal", Op::kRelu},
      // INT8 deployments' (de)quantization: a scale, a round and a cast per element.
      {"QuantizeLinear", Op::kRelu}, {"DequantizeLinear", Op::kRelu},
      {"Elu", Op::kTanh}, {"Selu", Op::kTanh}, {"Celu", Op::kTanh}, {"Softplus", Op::kTanh},
      {"Softsign", Op::kTanh}, {"Exp", Op::kTanh}, {"Log", Op::kTanh}, {"Erf", Op::kTanh},
      {"Sin", Op::kTanh}, {"Cos", Op::kTanh},
  };
  // clang-format on
  return ops;
}

// clang-format off
const std::vector<std::string> kOtherOps{
    "Conv", "Gemm", "MatMul", "BatchNormalization", "LayerNormalization", "Clip", "Add", "Sub",
    "Mul", "Div", "Sum", "Concat", "MaxPool", "AveragePool", "GlobalAveragePool",
    "GlobalMaxPool", "ReduceMean", "Flatten", "Reshape", "Squeeze", "Unsqueeze", "Transpose",
    "Constant", "Shape", "Size", "PRelu", "Pow", "Max", "Min", "Split", "Slice", "Pad",
    "Gather", "Resize", "Upsample", "ConvTranspose", "QLinearConv", "ConvInteger",
    "InstanceNormalization", "LRN", "DepthToSpace", "SpaceToDepth", "Expand", "Tile",
    "ReduceMax", "ReduceMin", "ArgMax", "ArgMin", "ReduceSum", "QLinearMatMul", "MatMulInteger"};
// clang-format on

// The ops this importer maps, sorted. Its own list: the module must not ask the loader
// (supported_onnx_ops), which would load the module again from outside.
const std::vector<std::string>& own_supported_ops() {
  static const std::vector<std::string> ops = [] {
    std::vector<std::string> out = kOtherOps;
    for (const auto& [name, op] : pointwise_ops()) out.push_back(name);
    std::sort(out.begin(), out.end());
    return out;
  }();
  return ops;
}

std::string supported_list() {
  return join(own_supported_ops(), ", ");
}

class Importer {
 public:
  Importer(std::string source, const ImportOptions& options)
      : source_(std::move(source)), options_(options) {}

  ImportResult run(onnx::ModelProto model) {
    if (!model.has_graph() || (model.graph().node_size() == 0 && model.graph().input_size() == 0)) {
      throw InputError(source_ + ": not an ONNX model (no graph with nodes)");
    }
    auto& graph = *model.mutable_graph();
    result_.network.source = source_;
    result_.network.name = std::filesystem::path(source_).stem().string();
    if (result_.network.name.empty()) result_.network.name = source_;

    for (const auto& init : graph.initializer()) {
      shapes_[init.name()] = Shape(init.dims().begin(), init.dims().end());
      if (auto v = tensor_values(init)) values_[init.name()] = std::move(*v);
    }
    check_opset(model);
    check_graph_order(model.graph());
    resolve_inputs(graph);
    check_window_attributes(model.graph());
    check_gemm_ranks(model.graph());
    infer_with_onnx(model);
    count_consumers(model.graph());

    for (const auto& node : model.graph().node()) visit(node);
    if (result_.network.layers.empty() && result_.skipped.empty()) {
      throw InputError(source_ + ": the graph has no node that computes on its inputs");
    }
    return std::move(result_);
  }

 private:
  std::string source_;
  ImportOptions options_;
  ImportResult result_;
  DType dtype_ = DType::kFp32;
  std::unordered_map<std::string, Shape> shapes_;                // known concrete shapes
  std::unordered_map<std::string, Shape> inferred_;              // from ONNX shape inference
  std::unordered_map<std::string, std::vector<double>> values_;  // small constants
  std::unordered_set<std::string> activations_;  // tensors derived from graph inputs
  std::unordered_map<std::string, int> consumers_;
  std::unordered_map<std::string, std::string> sole_consumer_;  // tensor -> its one reader's op
  // A folded zero Pad's output -> (the Pad's input shape, the pads to add to the window).
  std::unordered_map<std::string, std::pair<Shape, Shape>> folded_pads_;
  std::unordered_map<std::string, std::size_t> producer_;        // tensor -> layer index
  std::unordered_map<std::string, std::string> unknown_from_;    // tensor -> skipped node
  std::unordered_map<std::size_t, std::string> producer_input_;  // sigmoid layer -> its input

  void warn(const std::string& text) { result_.warnings.push_back(source_ + ": " + text); }

  static std::string node_name(const onnx::NodeProto& node) {
    if (!node.name().empty()) return node.name();
    return node.output_size() > 0 ? node.output(0) : std::string("<unnamed>");
  }

  static std::string op_type(const onnx::NodeProto& node) {
    const std::string& domain = node.domain();
    if (domain.empty() || domain == "ai.onnx") return node.op_type();
    return domain + ":" + node.op_type();
  }

  // Fixes every graph input's dimensions: dynamic batch -> options.batch, dynamic H/W ->
  // options.input_h/w; anything else dynamic is an error.
  void resolve_inputs(onnx::GraphProto& graph) {
    std::unordered_set<std::string> initializers;
    for (const auto& init : graph.initializer()) initializers.insert(init.name());
    bool first = true;
    for (auto& input : *graph.mutable_input()) {
      if (initializers.count(input.name())) continue;
      const std::string where = source_ + ": input '" + input.name() + "'";
      if (!input.type().has_tensor_type() || !input.type().tensor_type().has_shape()) {
        throw InputError(where + ": expected a tensor with a shape");
      }
      auto* shape = input.mutable_type()->mutable_tensor_type()->mutable_shape();
      const int rank = shape->dim_size();
      Shape dims;
      for (int i = 0; i < rank; ++i) {
        auto* dim = shape->mutable_dim(i);
        if (dim->has_dim_value() && dim->dim_value() < 0) {
          throw InputError(where + ": dimension " + std::to_string(i) + " is " +
                           std::to_string(dim->dim_value()) +
                           "; expected a positive size (or a dim_param for a dynamic one)");
        }
        const bool fixed = dim->has_dim_value() && dim->dim_value() > 0;
        std::int64_t value = fixed ? dim->dim_value() : 0;
        const std::string label = dim->has_dim_param() ? " ('" + dim->dim_param() + "')" : "";
        if (i == 0) {
          if (!fixed || options_.batch_given) value = options_.batch;
        } else if (rank == 4 && i >= 2) {
          const std::int64_t wanted = i == 2 ? options_.input_h : options_.input_w;
          if (wanted > 0) {
            if (fixed && value != wanted) {
              warn("input '" + input.name() + "' dimension " + std::to_string(i) + " fixed at " +
                   std::to_string(value) + " in the model, replaced by " + std::to_string(wanted));
            }
            value = wanted;
          } else if (!fixed) {
            throw InputError(where + ": dimension " + std::to_string(i) + label +
                             " is dynamic; expected an input size (HxW)");
          }
        } else if (!fixed) {
          throw InputError(
              where + ": dimension " + std::to_string(i) + label +
              " is dynamic; expected a fixed size (only batch and H/W may be dynamic)");
        }
        if (value <= 0) {
          throw InputError(where + ": expected a positive batch, got " + std::to_string(value));
        }
        dim->clear_dim_param();
        dim->set_dim_value(value);
        dims.push_back(value);
      }
      shapes_[input.name()] = dims;
      activations_.insert(input.name());
      if (first) {
        first = false;
        const int elem = input.type().tensor_type().elem_type();
        dtype_ = options_.dtype.value_or(elem == onnx::TensorProto::FLOAT16 ? DType::kFp16
                                                                            : DType::kFp32);
        auto& net = result_.network;
        net.batch = rank >= 1 ? dims[0] : 1;
        net.input_c = rank >= 2 ? dims[1] : 1;
        net.input_h = rank >= 4 ? dims[2] : 1;
        net.input_w = rank >= 4 ? product(dims, 3, dims.size()) : (rank == 3 ? dims[2] : 1);
      }
    }
    if (first) throw InputError(source_ + ": the graph has no input tensor (only initializers)");
    if (options_.dtype) dtype_ = *options_.dtype;
  }

  // ONNX's own shape inference (with data propagation, so Shape->Gather->Concat->Reshape
  // chains resolve) supplies shapes the walk cannot compute itself: Reshape targets computed
  // at run time and the outputs of skipped nodes. Stale value_info from the exporter (e.g. for
  // another batch) is dropped first so it cannot conflict.
  void infer_with_onnx(onnx::ModelProto& model) {
    auto& graph = *model.mutable_graph();
    // ONNX's inference trusts attribute types: Debian's libonnx dereferences null on a Conv
    // attribute without one (found by tests/fuzz/onnx_import_fuzz). Such a file goes without.
    for (const auto& node : graph.node()) {
      for (const auto& attribute : node.attribute()) {
        if (attribute.type() == onnx::AttributeProto::UNDEFINED) {
          warn("ONNX shape inference skipped: attribute '" + attribute.name() + "' of node '" +
               node_name(node) + "' has no type");
          return;
        }
      }
    }
    graph.clear_value_info();
    for (auto& output : *graph.mutable_output()) {
      if (output.type().has_tensor_type()) {
        output.mutable_type()->mutable_tensor_type()->clear_shape();
      }
    }
    guard_gemm_inference();
    try {
      onnx::ShapeInferenceOptions inference_options(false, 0, true);
      // The data-propagation results live in this map; without one they are dropped.
      std::unordered_map<std::string, onnx::TensorShapeProto> shape_data;
      onnx::shape_inference::InferShapes(model, onnx::OpSchemaRegistry::Instance(),
                                         inference_options, &shape_data);
      // ONNX 1.12 propagates the values of shape tensors (Shape -> Gather -> Concat) but its
      // Reshape inference does not read them back: keep them as constant values ourselves.
      for (const auto& [name, data] : shape_data) {
        std::vector<double> dims;
        for (const auto& d : data.dim()) {
          if (!d.has_dim_value()) break;
          dims.push_back(static_cast<double>(d.dim_value()));
        }
        if (dims.size() == static_cast<std::size_t>(data.dim_size())) values_.emplace(name, dims);
      }
    } catch (const std::exception& e) {
      warn(std::string("ONNX shape inference failed, continuing without it: ") + e.what());
      return;
    }
    auto take = [&](const onnx::ValueInfoProto& info) {
      if (!info.type().has_tensor_type() || !info.type().tensor_type().has_shape()) return;
      Shape dims;
      for (const auto& d : info.type().tensor_type().shape().dim()) {
        if (!d.has_dim_value() || d.dim_value() < 0) return;
        dims.push_back(d.dim_value());
      }
      inferred_[info.name()] = std::move(dims);
    };
    for (const auto& info : graph.value_info()) take(info);
    for (const auto& info : graph.output()) take(info);
  }

  void count_consumers(const onnx::GraphProto& graph) {
    for (const auto& node : graph.node()) {
      for (const auto& input : node.input()) {
        ++consumers_[input];
        sole_consumer_[input] = node.op_type();
      }
    }
    for (const auto& output : graph.output()) ++consumers_[output.name()];
    std::erase_if(sole_consumer_, [&](const auto& entry) { return consumers_[entry.first] != 1; });
  }

  // The default domain's opset picks each operator's semantics; 0 or less names none. A newer
  // opset than libonnx knows is read with its newest rules (most ops did not change).
  void check_opset(const onnx::ModelProto& model) {
    const auto& ranges = onnx::OpSchemaRegistry::DomainToVersionRange::Instance().Map();
    const int newest = ranges.at(onnx::ONNX_DOMAIN).second;
    for (const auto& entry : model.opset_import()) {
      if (!entry.domain().empty() && entry.domain() != "ai.onnx") continue;
      if (entry.version() <= 0) {
        throw InputError(source_ + ": opset_import: default-domain opset " +
                         std::to_string(entry.version()) + "; expected 1 or more");
      }
      if (entry.version() > newest) {
        warn("opset " + std::to_string(entry.version()) + " is newer than this build's ONNX " +
             "library knows (" + std::to_string(newest) + "); operators are read with opset " +
             std::to_string(newest) + "'s rules");
      }
    }
  }

  // ONNX requires nodes in topological order and each tensor assigned once. A model that breaks
  // either (a typo'd input, two nodes writing one tensor, a cycle) is not what its author ran,
  // so it is refused rather than timed.
  void check_graph_order(const onnx::GraphProto& graph) const {
    std::unordered_map<std::string, std::string> defined;  // tensor -> what defines it
    // A name declared twice among the graph inputs (or the initializers) crashes ONNX's shape
    // inference (SIGSEGV inside libonnx, a fuzz finding); an initializer may also be an input.
    for (const auto& input : graph.input()) {
      if (!defined.emplace(input.name(), "a graph input").second) {
        throw InputError(source_ + ": graph input '" + input.name() +
                         "' is declared twice (ONNX names each tensor once)");
      }
    }
    std::unordered_set<std::string> initializers;
    for (const auto& init : graph.initializer()) {
      if (!initializers.insert(init.name()).second) {
        throw InputError(source_ + ": initializer '" + init.name() +
                         "' is declared twice (ONNX names each tensor once)");
      }
      defined.emplace(init.name(), "an initializer");
    }
    for (const auto& node : graph.node()) {
      for (const auto& input : node.input()) {
        if (!input.empty() && !defined.count(input)) {
          fail(node, "input '" + input +
                         "' is not a graph input, an initializer or the output of an earlier "
                         "node (ONNX graphs are in topological order)");
        }
      }
      for (const auto& output : node.output()) {
        if (output.empty()) continue;
        const auto [it, fresh] = defined.emplace(output, "node '" + node_name(node) + "'");
        if (!fresh) {
          fail(node, "output '" + output + "' is already defined by " + it->second +
                         " (ONNX graphs assign each tensor once)");
        }
      }
    }
  }

  // ONNX's shape inference divides by strides and dilations unchecked (a zero stride is a
  // SIGFPE inside libonnx), so every node's window attributes are checked before it runs.
  void check_window_attributes(const onnx::GraphProto& graph) const {
    for (const auto& node : graph.node()) {
      for (const char* name : {"kernel_shape", "strides", "dilations"}) {
        for (const std::int64_t v : ints_attribute(node, name)) {
          if (v <= 0) {
            fail(node, std::string("attribute '") + name + "': expected positive values, got " +
                           std::to_string(v));
          }
        }
      }
      for (const std::int64_t v : ints_attribute(node, "pads")) {
        if (v < 0) {
          fail(node, "attribute 'pads': expected non-negative values, got " + std::to_string(v));
        }
      }
      check_window_ranks(node);
    }
  }

  // ONNX's inference of a windowed op indexes its attributes by the input's spatial rank
  // unchecked (a rank-2 Conv input with 2-D strides is a SIGSEGV inside libonnx, found by
  // tests/fuzz/onnx_import_fuzz), so the ranks known before it runs must agree.
  void check_window_ranks(const onnx::NodeProto& node) const {
    static const std::unordered_set<std::string> window_ops{
        "Conv", "ConvTranspose", "ConvInteger", "QLinearConv", "MaxPool", "AveragePool", "LpPool"};
    if (node.input_size() == 0 || window_ops.count(node.op_type()) == 0) return;
    const auto data = shapes_.find(node.input(0));
    if (data == shapes_.end()) return;
    const std::size_t rank = data->second.size();
    if (rank < 3) {
      fail(node, "input '" + node.input(0) + "' has rank " + std::to_string(rank) +
                     "; expected N, C and at least one spatial dimension");
    }
    const std::size_t spatial = rank - 2;
    for (const char* name : {"kernel_shape", "strides", "dilations"}) {
      const std::size_t n = ints_attribute(node, name).size();
      if (n != 0 && n != spatial) {
        fail(node, std::string("attribute '") + name + "' has " + std::to_string(n) +
                       " values for an input of " + std::to_string(spatial) +
                       " spatial dimensions");
      }
    }
    if (const std::size_t n = ints_attribute(node, "pads").size(); n != 0 && n != 2 * spatial) {
      fail(node, "attribute 'pads' has " + std::to_string(n) + " values; expected " +
                     std::to_string(2 * spatial));
    }
    if (node.op_type() == "ConvTranspose") {
      for (const char* name : {"output_padding", "output_shape"}) {
        const std::size_t n = ints_attribute(node, name).size();
        if (n != 0 && n != spatial) {
          fail(node, std::string("attribute '") + name + "' has " + std::to_string(n) +
                         " values for an input of " + std::to_string(spatial) +
                         " spatial dimensions");
        }
      }
    }
    const int weight_index = node.op_type() == "QLinearConv" ? 3 : 1;
    if (node.input_size() > weight_index && node.op_type() != "MaxPool" &&
        node.op_type() != "AveragePool") {
      const auto weight = shapes_.find(node.input(weight_index));
      if (weight != shapes_.end() && weight->second.size() != rank) {
        fail(node, "weight '" + node.input(weight_index) + "' has rank " +
                       std::to_string(weight->second.size()) + ", the input " +
                       std::to_string(rank));
      }
    }
  }

  // ONNX's Gemm inference at opset 6 indexes A's and B's dims by transA/transB unchecked (a
  // rank-1 B is a SIGSEGV inside libonnx, found by tests/fuzz/onnx_import_fuzz); every Gemm
  // multiplies rank-2 A and B, so the ranks known before it runs must be 2.
  void check_gemm_ranks(const onnx::GraphProto& graph) const {
    for (const auto& node : graph.node()) {
      if (node.op_type() != "Gemm") continue;
      for (int i = 0; i < std::min(node.input_size(), 2); ++i) {
        const auto shape = shapes_.find(node.input(i));
        if (shape != shapes_.end() && shape->second.size() != 2) {
          fail(node, std::string("input ") + (i == 0 ? "A" : "B") + " '" + node.input(i) +
                         "' has rank " + std::to_string(shape->second.size()) +
                         "; Gemm multiplies rank-2 A and B");
        }
      }
    }
  }

  [[noreturn]] void fail(const onnx::NodeProto& node, const std::string& what) const {
    throw InputError(source_ + ": node '" + node_name(node) + "' (op_type " + op_type(node) +
                     "): " + what);
  }

  // Shape of an input the node needs; unknown shapes are skippable (they follow a skip).
  const Shape& shape_of(const onnx::NodeProto& node, int index) {
    if (index >= node.input_size() || node.input(index).empty()) {
      fail(node, "expected input " + std::to_string(index));
    }
    const std::string& name = node.input(index);
    auto it = shapes_.find(name);
    if (it != shapes_.end()) return it->second;
    auto inf = inferred_.find(name);
    if (inf != inferred_.end()) return inf->second;
    auto from = unknown_from_.find(name);
    if (from != unknown_from_.end()) {
      throw Unsupported{"the shape of input '" + name + "' is unknown (it follows skipped node '" +
                        from->second + "')"};
    }
    throw Unsupported{"the shape of input '" + name + "' is unknown"};
  }

  bool has_input(const onnx::NodeProto& node, int index) const {
    return index < node.input_size() && !node.input(index).empty();
  }

  const std::vector<double>* values_of(const onnx::NodeProto& node, int index) const {
    if (!has_input(node, index)) return nullptr;
    auto it = values_.find(node.input(index));
    return it == values_.end() ? nullptr : &it->second;
  }

  void set_output(const onnx::NodeProto& node, int index, Shape shape) {
    if (index >= node.output_size() || node.output(index).empty()) return;
    shapes_[node.output(index)] = std::move(shape);
    activations_.insert(node.output(index));
  }

  Layer make_layer(const onnx::NodeProto& node, Op op) const {
    Layer layer;
    layer.name = node_name(node);
    layer.op = op;
    layer.dtype = dtype_;
    return layer;
  }

  void emit(const onnx::NodeProto& node, Layer layer) {
    layer.validate(source_ + ": node '" + layer.name + "'");
    for (const auto& out : node.output()) {
      if (!out.empty()) producer_[out] = result_.network.layers.size();
    }
    result_.network.layers.push_back(std::move(layer));
  }

  void visit(const onnx::NodeProto& node) {
    bool on_activation = false;
    for (const auto& input : node.input()) {
      if (!input.empty() && activations_.count(input)) on_activation = true;
    }
    if (node.op_type() == "Constant" && (node.domain().empty() || node.domain() == "ai.onnx")) {
      record_constant(node);
      return;
    }
    const bool metadata = node.op_type() == "Shape" || node.op_type() == "Size";
    if (!on_activation || metadata) {
      // Computes on constants or tensor shapes only (e.g. Shape -> Gather -> Concat feeding a
      // Reshape): no GPU kernel of the network; its outputs are constants.
      for (const auto& out : node.output()) {
        auto inf = inferred_.find(out);
        if (inf != inferred_.end()) shapes_[out] = inf->second;
      }
      return;
    }
    try {
      dispatch(node);
    } catch (const Unsupported& unsupported) {
      if (!options_.skip_unsupported) fail(node, unsupported.reason);
      result_.skipped.push_back(SkippedNode{node_name(node), op_type(node), unsupported.reason,
                                            result_.network.layers.size()});
      for (const auto& out : node.output()) {
        if (out.empty()) continue;
        activations_.insert(out);
        auto inf = inferred_.find(out);
        if (inf != inferred_.end()) {
          shapes_[out] = inf->second;
        } else {
          unknown_from_[out] = node_name(node);
        }
      }
    }
  }

  void record_constant(const onnx::NodeProto& node) {
    if (node.output_size() < 1) return;
    const std::string& out = node.output(0);
    if (const auto* a = find_attribute(node, "value"); a && a->has_t()) {
      shapes_[out] = Shape(a->t().dims().begin(), a->t().dims().end());
      if (auto v = tensor_values(a->t())) values_[out] = std::move(*v);
    } else if (const auto* f = find_attribute(node, "value_float")) {
      shapes_[out] = {};
      values_[out] = {f->f()};
    } else if (const auto* i = find_attribute(node, "value_int")) {
      shapes_[out] = {};
      values_[out] = {static_cast<double>(i->i())};
    } else if (const auto* fs = find_attribute(node, "value_floats")) {
      shapes_[out] = {static_cast<std::int64_t>(fs->floats_size())};
      values_[out].assign(fs->floats().begin(), fs->floats().end());
    } else if (const auto* is = find_attribute(node, "value_ints")) {
      shapes_[out] = {static_cast<std::int64_t>(is->ints_size())};
      for (const auto v : is->ints()) values_[out].push_back(static_cast<double>(v));
    }
  }

  void dispatch(const onnx::NodeProto& node) {
    const bool default_domain = node.domain().empty() || node.domain() == "ai.onnx";
    const std::string& type = node.op_type();
    if (!default_domain && !(node.domain() == "com.microsoft" && type == "Gelu")) {
      throw Unsupported{"unsupported operator (expected one of: " + supported_list() + ")"};
    }
    if (type == "Conv") return conv(node, 1, 2);
    if (type == "QLinearConv") return conv(node, 3, 8);
    if (type == "ConvInteger") return conv(node, 1, -1);
    if (type == "ConvTranspose") return conv_transpose(node);
    if (type == "InstanceNormalization") return instance_norm(node);
    if (type == "LRN") return lrn(node);
    if (type == "DepthToSpace" || type == "SpaceToDepth") return depth_space(node);
    if (type == "Expand" || type == "Tile") return expand_or_tile(node);
    if (type == "ReduceMax" || type == "ReduceMin" || type == "ArgMax" || type == "ArgMin") {
      return reduce_window(node, Op::kMaxPool);
    }
    if (type == "ReduceMean" || type == "ReduceSum") return reduce_window(node, Op::kAvgPool);
    if (type == "MaxPool" || type == "AveragePool") return pool(node);
    if (type == "GlobalAveragePool" || type == "GlobalMaxPool") return global_pool(node);
    if (type == "Gemm") return gemm(node);
    if (type == "MatMul" || type == "MatMulInteger") return matmul(node, 1);
    if (type == "QLinearMatMul") return matmul(node, 3);
    if (type == "BatchNormalization") return batchnorm(node);
    if (type == "LayerNormalization") return layernorm(node);
    if (type == "Clip") return clip(node);
    if (type == "Add" || type == "Sub" || type == "Mul" || type == "Div" || type == "PRelu" ||
        type == "Pow") {
      return binary(node);
    }
    if (type == "Max" || type == "Min") {
      if (node.input_size() != 2) throw Unsupported{type + " of other than 2 inputs"};
      return binary(node);
    }
    if (type == "Split" || type == "Slice") return slice_view(node);
    if (type == "Gather") {
      // x[:, 0] (a ViT's class token): constant indices select a view. Indices computed at
      // run time (an embedding lookup) are a gather kernel cnnperf does not model.
      if (values_of(node, 1) == nullptr || activations_.count(node.input(1)) != 0) {
        throw Unsupported{"Gather with indices computed at run time"};
      }
      return slice_view(node);
    }
    if (type == "Pad") return pad(node);
    if (type == "Resize" || type == "Upsample") return resize(node);
    if (type == "Sum") return sum(node);
    if (type == "Concat") return concat(node);
    if (type == "Flatten" || type == "Reshape" || type == "Squeeze" || type == "Unsqueeze") {
      return view(node);
    }
    if (type == "Transpose") return transpose(node);
    if (auto it = pointwise_ops().find(type); it != pointwise_ops().end()) {
      return pointwise(node, it->second);
    }
    throw Unsupported{"unsupported operator (expected one of: " + supported_list() + ")"};
  }

  void pointwise(const onnx::NodeProto& node, Op op) {
    const Shape in = shape_of(node, 0);
    if (const auto* a = find_attribute(node, "axis"); a && op == Op::kSoftmax) {
      const auto rank = static_cast<std::int64_t>(in.size());
      const std::int64_t axis = a->i();
      if (axis < -rank || axis >= rank) {
        fail(node, "attribute 'axis' is " + std::to_string(axis) + "; expected -" +
                       std::to_string(rank) + " to " + std::to_string(rank - 1) + " for " +
                       shape_text(in));
      }
    }
    Layer layer = make_layer(node, op);
    place(layer, in);
    if (op == Op::kSigmoid) producer_input_[result_.network.layers.size()] = node.input(0);
    emit(node, layer);
    for (int i = 0; i < node.output_size(); ++i) set_output(node, i, in);  // Dropout's mask too
  }

  // One spatial axis of a window op: ONNX pads/auto_pad -> the Layer's symmetric pad.
  struct Axis {
    std::int64_t in, kernel, stride, dilation, pad_begin, pad_end, out;
  };

  // `folded`: a zero Pad folded into this window (pad()), begins then ends of each axis.
  std::vector<Axis> window_axes(const onnx::NodeProto& node, const Shape& x, const Shape& kernel,
                                bool ceil_mode, const Shape& folded = {}) {
    const std::size_t spatial = x.size() - 2;
    auto strides = ints_attribute(node, "strides");
    auto dilations = ints_attribute(node, "dilations");
    auto pads = ints_attribute(node, "pads");
    if (strides.empty()) strides.assign(spatial, 1);
    if (dilations.empty()) dilations.assign(spatial, 1);
    const std::string auto_pad = string_attribute(node, "auto_pad", "NOTSET");
    if (pads.empty()) pads.assign(2 * spatial, 0);
    if (!folded.empty()) {
      if (auto_pad != "NOTSET" && !auto_pad.empty()) {
        fail(node, "auto_pad " + auto_pad + " after a folded Pad node");
      }
      if (folded.size() != pads.size()) fail(node, "a folded Pad of another rank");
      for (std::size_t i = 0; i < pads.size(); ++i) pads[i] += folded[i];
    }
    if (kernel.size() != spatial || strides.size() != spatial || dilations.size() != spatial ||
        pads.size() != 2 * spatial) {
      fail(node, "kernel_shape/strides/dilations/pads do not match the input rank " +
                     std::to_string(x.size()));
    }
    std::vector<Axis> axes;
    for (std::size_t i = 0; i < spatial; ++i) {
      Axis a{x[2 + i], kernel[i], strides[i], dilations[i], pads[i], pads[spatial + i], 0};
      if (a.kernel <= 0 || a.stride <= 0 || a.dilation <= 0 || a.pad_begin < 0 || a.pad_end < 0) {
        fail(node, "expected positive kernel/strides/dilations and non-negative pads");
      }
      if (auto_pad == "SAME_UPPER" || auto_pad == "SAME_LOWER") {
        a.out = (a.in + a.stride - 1) / a.stride;
        const std::int64_t total = std::max<std::int64_t>(
            0, (a.out - 1) * a.stride + (a.kernel - 1) * a.dilation + 1 - a.in);
        const std::int64_t small = total / 2;
        a.pad_begin = auto_pad == "SAME_UPPER" ? small : total - small;
        a.pad_end = total - a.pad_begin;
      } else {
        if (auto_pad == "VALID") {
          a.pad_begin = a.pad_end = 0;
        } else if (auto_pad != "NOTSET" && !auto_pad.empty()) {
          fail(node, "unknown auto_pad '" + auto_pad + "'");
        }
        a.out = onnx_window_out(a.in, a.kernel, a.stride, a.dilation, a.pad_begin, a.pad_end,
                                ceil_mode);
      }
      if (a.out <= 0) {
        fail(node, "the window does not fit the input " + shape_text(x) +
                       "; expected an output of at least 1");
      }
      axes.push_back(a);
    }
    return axes;
  }

  // Sets kernel/stride/dilation/pad of the layer from 1 or 2 spatial axes (1-D ops become
  // h = 1): a symmetric pad when one reproduces ONNX's output size, else ONNX's own pair.
  void apply_axes(Layer& layer, const std::vector<Axis>& axes) {
    const bool two_d = axes.size() == 2;
    const Axis unit{1, 1, 1, 1, 0, 0, 1};
    const Axis& ah = two_d ? axes[0] : unit;
    const Axis& aw = two_d ? axes[1] : axes[0];
    layer.kernel_h = ah.kernel;
    layer.kernel_w = aw.kernel;
    layer.stride_h = ah.stride;
    layer.stride_w = aw.stride;
    layer.dilation_h = ah.dilation;
    layer.dilation_w = aw.dilation;
    auto choose = [&](const Axis& a, std::int64_t Layer::*pad, std::int64_t Layer::*pad_end,
                      bool height) {
      auto out = [&] { return height ? layer.h_out() : layer.w_out(); };
      const std::int64_t total = a.pad_begin + a.pad_end;
      if (a.pad_begin == a.pad_end) {
        layer.*pad = a.pad_begin;
      } else {
        // An asymmetric pair whose sum gives the same output size as a symmetric pad keeps
        // the output (and MACs) exact; only the position of the zero border differs.
        for (const std::int64_t candidate : {total / 2, (total + 1) / 2}) {
          layer.*pad = candidate;
          if (out() == a.out) return;
        }
        // Otherwise (SAME with an even kernel at stride 1) the pair itself.
        layer.*pad = a.pad_begin;
        layer.*pad_end = a.pad_end;
      }
      if (out() != a.out) {
        warn("node '" + layer.name + "': pads " + std::to_string(a.pad_begin) + "/" +
             std::to_string(a.pad_end) + " (" + (height ? "height" : "width") + ") modelled as " +
             std::to_string(layer.*pad) + " on both sides: output " + std::to_string(out()) +
             " instead of ONNX's " + std::to_string(a.out));
      }
    };
    choose(ah, &Layer::pad_h, &Layer::pad_h_end, true);
    choose(aw, &Layer::pad_w, &Layer::pad_w_end, false);
  }

  static Shape window_output(const Shape& x, std::int64_t channels, const std::vector<Axis>& axes) {
    Shape out{x[0], channels};
    for (const auto& a : axes) out.push_back(a.out);
    return out;
  }

  static void require_spatial(const Shape& x) {
    if (x.size() == 3 || x.size() == 4) return;
    if (x.size() == 5) {
      throw Unsupported{"a 3-D window (rank-5 input " + shape_text(x) +
                        ") is not modelled: the layer model has no depth dimension"};
    }
    throw Unsupported{"expected a 1-D or 2-D (rank 3 or 4) input, got " + shape_text(x)};
  }

  void place_spatial(Layer& layer, const Shape& x) {
    layer.batch = x[0];
    layer.c_in = x[1];
    layer.h_in = x.size() == 4 ? x[2] : 1;
    layer.w_in = x.back();
  }

  // The input of a window op and the zero Pad folded into it (none: empty).
  std::pair<Shape, Shape> window_input(const onnx::NodeProto& node) {
    const Shape x = shape_of(node, 0);
    const auto folded = folded_pads_.find(node.input(0));
    if (folded == folded_pads_.end()) return {x, {}};
    return folded->second;
  }

  // The window of a convolution: its weight's trailing dims, which kernel_shape (if given)
  // must repeat.
  Shape kernel_of(const onnx::NodeProto& node, const Shape& w) const {
    Shape weight_kernel(w.begin() + 2, w.end());
    const Shape kernel = ints_attribute(node, "kernel_shape");
    if (!kernel.empty() && kernel != weight_kernel) {
      fail(node, "kernel_shape " + shape_text(kernel) + " does not match the weight's " +
                     shape_text(weight_kernel));
    }
    return weight_kernel;
  }

  // Conv, and the INT8 convolutions (QLinearConv, ConvInteger) whose weight and bias sit at
  // other input positions. An INT8 row is int8 unless --precision names another type.
  void conv(const onnx::NodeProto& node, int weight_index, int bias_index) {
    const auto [x, folded] = window_input(node);
    require_spatial(x);
    const Shape w = shape_of(node, weight_index);
    if (w.size() != x.size()) {
      fail(node, "weight shape " + shape_text(w) + " does not match input " + shape_text(x));
    }
    const std::int64_t groups = int_attribute(node, "group", 1);
    if (groups <= 0 || w[1] * groups != x[1]) {
      fail(node, "input channels " + std::to_string(x[1]) + " != weight channels " +
                     std::to_string(w[1]) + " x group " + std::to_string(groups));
    }
    const Shape kernel = kernel_of(node, w);
    Layer layer = make_layer(node, Op::kConv2d);
    if (node.op_type() != "Conv") layer.dtype = options_.dtype.value_or(DType::kInt8);
    place_spatial(layer, x);
    layer.c_out = w[0];
    layer.groups = groups;
    layer.bias = bias_index >= 0 && has_input(node, bias_index);
    const auto axes = window_axes(node, x, kernel, false, folded);
    apply_axes(layer, axes);
    emit(node, layer);
    set_output(node, 0, window_output(x, w[0], axes));
  }

  // A shape this importer computed (not ONNX's): every dimension and the element count within
  // Layer::validate's limits, checked before any product of them can overflow.
  void check_computed_shape(const onnx::NodeProto& node, const Shape& shape,
                            const std::string& what = "output") const {
    double elements = 1;
    for (const std::int64_t d : shape) {
      if (d <= 0 || d > kMaxLayerDim) {
        fail(node, what + " " + shape_text(shape) + ": expected dimensions from 1 to " +
                       std::to_string(kMaxLayerDim));
      }
      elements *= static_cast<double>(d);
    }
    if (elements > kMaxLayerElements) {
      fail(node, what + " " + shape_text(shape) + " has more than 2^48 elements");
    }
  }

  // ConvTranspose is the backward-data pass of the convolution that maps its output back to
  // its input, and cuDNN runs it as exactly that kernel. The row is that forward convolution:
  // c_in = the output channels, h_in/w_in = the output size, c_out = the input channels, the
  // same kernel, strides, dilations and pads. Its MACs (N*C_in*H*W*C_out/group*kh*kw) and
  // tensor bytes equal the transposed convolution's.
  void conv_transpose(const onnx::NodeProto& node) {
    const Shape x = shape_of(node, 0);
    require_spatial(x);
    const Shape w = shape_of(node, 1);
    if (w.size() != x.size()) {
      fail(node, "weight shape " + shape_text(w) + " does not match input " + shape_text(x));
    }
    // Bounds every size below, so that no product of them overflows.
    check_computed_shape(node, x, "input");
    check_computed_shape(node, w, "weight");
    const std::int64_t groups = int_attribute(node, "group", 1);
    if (groups <= 0 || w[0] != x[1] || x[1] % groups != 0) {
      fail(node, "input channels " + std::to_string(x[1]) + ": expected the weight's first " +
                     "dimension (" + std::to_string(w[0]) + "), divisible by group " +
                     std::to_string(groups));
    }
    const std::size_t spatial = x.size() - 2;
    const Shape kernel = kernel_of(node, w);
    auto per_axis = [&](const char* name, std::int64_t fallback) {
      Shape v = ints_attribute(node, name);
      if (v.empty()) v.assign(spatial, fallback);
      if (v.size() != spatial) fail(node, std::string("attribute '") + name + "': wrong length");
      return v;
    };
    const Shape strides = per_axis("strides", 1);
    const Shape dilations = per_axis("dilations", 1);
    const Shape output_padding = per_axis("output_padding", 0);
    const Shape output_shape = ints_attribute(node, "output_shape");
    Shape pads = ints_attribute(node, "pads");
    if (pads.empty()) pads.assign(2 * spatial, 0);
    if (pads.size() != 2 * spatial) fail(node, "attribute 'pads': wrong length");
    const std::string auto_pad = string_attribute(node, "auto_pad", "NOTSET");
    std::vector<Axis> axes;  // of the forward convolution: its output is the ConvTranspose input
    Shape out{x[0], w[1] * groups};
    for (std::size_t i = 0; i < spatial; ++i) {
      const std::int64_t in = x[2 + i];
      const std::int64_t k = kernel[i];
      const std::int64_t s = strides[i];
      const std::int64_t d = dilations[i];
      const std::int64_t op = output_padding[i];
      const std::pair<const char*, std::int64_t> values[] = {
          {"kernel_shape", k},    {"strides", s},    {"dilations", d},
          {"output_padding", op}, {"pads", pads[i]}, {"pads", pads[spatial + i]}};
      for (const auto& [name, v] : values) {
        if (v < 0 || v > kMaxLayerDim) {
          fail(node, std::string("attribute '") + name + "': " + std::to_string(v) +
                         " is out of range; expected 0 to " + std::to_string(kMaxLayerDim));
        }
      }
      if (k == 0 || s == 0 || d == 0) fail(node, "expected positive kernel/strides/dilations");
      if (op >= s && op >= d) {
        fail(node, "output_padding " + std::to_string(op) + ": expected less than the stride " +
                       std::to_string(s) + " or the dilation " + std::to_string(d));
      }
      // Every term is below 2^31, so the sum cannot overflow.
      const std::int64_t full = s * (in - 1) + op + (k - 1) * d + 1;
      std::int64_t pad_begin = pads[i];
      std::int64_t pad_end = pads[spatial + i];
      std::int64_t size = 0;
      if (!output_shape.empty() || auto_pad == "SAME_UPPER" || auto_pad == "SAME_LOWER") {
        size = output_shape.empty() ? in * s : output_shape[i];
        const std::int64_t total = full - size;
        if (size <= 0 || size > kMaxLayerDim) {
          fail(node, "output size " + std::to_string(size) + ": expected 1 to " +
                         std::to_string(kMaxLayerDim));
        }
        // An output_shape past the full size appends zero rows, as output_padding does (the
        // window check below requires them to stay within a stride).
        pad_begin =
            std::max<std::int64_t>(0, auto_pad == "SAME_UPPER" ? total / 2 : total - total / 2);
        pad_end = std::max<std::int64_t>(0, total - pad_begin);
      } else {
        if (auto_pad == "VALID") pad_begin = pad_end = 0;
        if (auto_pad != "NOTSET" && auto_pad != "VALID" && !auto_pad.empty()) {
          fail(node, "unknown auto_pad '" + auto_pad + "'");
        }
        size = full - pad_begin - pad_end;
      }
      if (size <= 0) fail(node, "the pads leave no output");
      const Axis axis{size, k, s, d, pad_begin, pad_end, in};
      if (onnx_window_out(size, k, s, d, pad_begin, pad_end, false) != in) {
        throw Unsupported{"output size " + std::to_string(size) +
                          " is not the input of a convolution giving " + std::to_string(in)};
      }
      axes.push_back(axis);
      out.push_back(size);
    }
    check_computed_shape(node, out);
    Layer layer = make_layer(node, Op::kConv2d);
    place_spatial(layer, out);
    layer.c_out = x[1];
    layer.groups = groups;
    layer.bias = has_input(node, 2);
    apply_axes(layer, axes);
    emit(node, layer);
    set_output(node, 0, out);
  }

  // A row per channel of each sample (h_in = C) over the plane (c_in = the product of the
  // spatial dims): instance norm's rows, LRN's window axis.
  Layer channel_row(const onnx::NodeProto& node, Op op, const Shape& x) const {
    if (x.size() < 3) fail(node, "expected an input of rank >= 3, got " + shape_text(x));
    check_computed_shape(node, x, "input");
    Layer layer = make_layer(node, op);
    layer.batch = x[0];
    layer.h_in = x[1];
    layer.c_in = product(x, 2, x.size());
    layer.c_out = layer.c_in;
    return layer;
  }

  // InstanceNormalization computes a mean and variance per (sample, channel) over the plane,
  // as layer norm does per row, and not a fixed scale and shift as inference batch norm does:
  // a layernorm row whose rows are the channels (h_in = C) and whose normalized size is the
  // plane (c_in = H*W). Its params count 2*H*W instead of the 2*C scales and shifts.
  void instance_norm(const onnx::NodeProto& node) {
    const Shape x = shape_of(node, 0);
    emit(node, channel_row(node, Op::kLayerNorm, x));
    set_output(node, 0, x);
  }

  // LRN sums the squares of `size` neighbouring channels at every pixel: a sliding window
  // along the channels. The row is an avgpool with that window laid along h (h_in = C,
  // kernel_h = size, the plane as c_in), so its flops count the window's reads and its bytes
  // one read and one write of the tensor.
  void lrn(const onnx::NodeProto& node) {
    const Shape x = shape_of(node, 0);
    Layer layer = channel_row(node, Op::kAvgPool, x);
    const std::int64_t size = int_attribute(node, "size", 0);
    if (size <= 0 || size > kMaxLayerDim) {
      fail(node, "attribute 'size' is " + std::to_string(size) + "; expected a positive window");
    }
    layer.kernel_h = size;
    layer.pad_h = (size - 1) / 2;  // ONNX's window: floor((size-1)/2) before, ceil after
    layer.pad_h_end = (size - 1) - layer.pad_h;
    emit(node, layer);
    set_output(node, 0, x);
  }

  // DepthToSpace/SpaceToDepth rearrange the tensor in one transpose: a copy row at the output.
  void depth_space(const onnx::NodeProto& node) {
    const Shape x = shape_of(node, 0);
    if (x.size() != 4) fail(node, "expected a 4-D input, got " + shape_text(x));
    check_computed_shape(node, x, "input");
    const std::int64_t b = int_attribute(node, "blocksize", 0);
    if (b <= 0 || b > 65536) {
      fail(node, "attribute 'blocksize' is " + std::to_string(b) + "; expected 1 to 65536");
    }
    Shape out = x;
    if (node.op_type() == "DepthToSpace") {
      if (x[1] % (b * b) != 0) fail(node, "channels not divisible by blocksize^2");
      out = {x[0], x[1] / (b * b), x[2] * b, x[3] * b};
    } else {
      if (x[2] % b != 0 || x[3] % b != 0) fail(node, "height or width not divisible by blocksize");
      out = {x[0], x[1] * b * b, x[2] / b, x[3] / b};
    }
    check_computed_shape(node, out);
    copy_row(node, out);
  }

  // Expand (broadcast to a shape) and Tile (repeat) write a bigger tensor from a smaller one:
  // a copy row at the output size, as Resize.
  void expand_or_tile(const onnx::NodeProto& node) {
    const Shape x = shape_of(node, 0);
    const auto* v = values_of(node, 1);
    if (v == nullptr || activations_.count(node.input(1)) != 0) {
      throw Unsupported{node.op_type() + " with a shape or repeats computed at run time"};
    }
    Shape arg;
    for (const double d : *v) {
      if (!(d >= 1 && d <= static_cast<double>(kMaxLayerDim))) {
        fail(node, "input '" + node.input(1) + "': expected values from 1 to " +
                       std::to_string(kMaxLayerDim) + ", got " + format_number(d));
      }
      arg.push_back(static_cast<std::int64_t>(d));
    }
    Shape out;
    if (node.op_type() == "Expand") {
      const auto merged = broadcast(x, arg);
      if (!merged) fail(node, shape_text(x) + " does not broadcast to " + shape_text(arg));
      out = *merged;
    } else {
      if (arg.size() != x.size()) fail(node, "repeats do not match the input rank");
      for (std::size_t i = 0; i < x.size(); ++i) {
        // Checked in double: the product of two values below 2^31 fits, a bigger x may not.
        if (static_cast<double>(x[i]) * static_cast<double>(arg[i]) > kMaxLayerDim) {
          fail(node, "output dimension " + std::to_string(i) + " too large");
        }
        out.push_back(x[i] * arg[i]);
      }
    }
    check_computed_shape(node, out);
    copy_row(node, out);
  }

  void copy_row(const onnx::NodeProto& node, const Shape& out) {
    Layer layer = make_layer(node, Op::kChannelShuffle);
    place(layer, out);
    emit(node, layer);
    set_output(node, 0, out);
  }

  // A reduction over contiguous axes reads every element once: a pool whose window is the
  // reduced extent, max (ReduceMax/ReduceMin/ArgMax/ArgMin: compares) or avg (ReduceMean,
  // ReduceSum: adds). Over the trailing spatial axes that is GlobalMaxPool's row (maxpool)
  // or, for axes [2,3] of a 4-D tensor, global_avgpool (TensorFlow's mean pooling);
  // otherwise the axes before the reduced ones are the batch, the reduced ones h_in
  // (= kernel_h) and the ones after c_in.
  void reduce_window(const onnx::NodeProto& node, Op pool_op) {
    const Shape x = shape_of(node, 0);
    const auto rank = static_cast<std::int64_t>(x.size());
    if (rank == 0) throw Unsupported{"a reduction of a scalar"};
    check_computed_shape(node, x, "input");
    const bool arg = node.op_type().rfind("Arg", 0) == 0;
    Shape axes;
    if (arg) {
      axes = {int_attribute(node, "axis", 0)};
    } else {
      axes = ints_attribute(node, "axes");
      if (has_input(node, 1)) {
        const auto* v = values_of(node, 1);
        if (v == nullptr || activations_.count(node.input(1)) != 0) {
          throw Unsupported{"axes computed at run time"};
        }
        axes.clear();
        for (const double a : *v) {
          // Range-checked as a double: converting one beyond int64 is undefined.
          if (!(a >= static_cast<double>(-rank) && a < static_cast<double>(rank))) {
            fail(node, "axis " + format_number(a) + " out of range for " + shape_text(x));
          }
          axes.push_back(static_cast<std::int64_t>(a));
        }
      }
      if (axes.empty()) {
        if (int_attribute(node, "noop_with_empty_axes", 0) != 0) {
          throw Unsupported{"a reduction over no axes (noop_with_empty_axes)"};
        }
        axes.resize(x.size());
        std::iota(axes.begin(), axes.end(), 0);
      }
    }
    for (auto& a : axes) {
      if (a < -rank || a >= rank) fail(node, "axis " + std::to_string(a) + " out of range");
      a = norm_axis(a, x.size());
    }
    std::sort(axes.begin(), axes.end());
    if (std::adjacent_find(axes.begin(), axes.end()) != axes.end()) {
      fail(node, "an axis is listed twice");
    }
    if (axes.back() - axes.front() + 1 != static_cast<std::int64_t>(axes.size())) {
      throw Unsupported{"a reduction over axes that are not contiguous"};
    }
    const auto first = static_cast<std::size_t>(axes.front());
    const auto last = static_cast<std::size_t>(axes.back());
    Layer layer = make_layer(node, pool_op);
    if (pool_op == Op::kAvgPool && x.size() == 4 && first == 2 && last == 3) {
      layer.op = Op::kGlobalAvgPool;
      place(layer, x);
    } else if (first == 2 && last == x.size() - 1) {
      place(layer, x);
    } else {
      layer.batch = product(x, 0, first);
      layer.h_in = product(x, first, last + 1);
      layer.c_in = product(x, last + 1, x.size());
      layer.c_out = layer.c_in;
    }
    if (layer.op != Op::kGlobalAvgPool) {
      layer.kernel_h = layer.h_in;
      layer.kernel_w = layer.w_in;
    }
    emit(node, layer);
    const bool keep = int_attribute(node, "keepdims", 1) != 0;
    Shape out;
    for (std::size_t i = 0; i < x.size(); ++i) {
      if (i < first || i > last) {
        out.push_back(x[i]);
      } else if (keep) {
        out.push_back(1);
      }
    }
    set_output(node, 0, out);
  }

  void pool(const onnx::NodeProto& node) {
    const auto [x, folded] = window_input(node);
    require_spatial(x);
    const Shape kernel = ints_attribute(node, "kernel_shape");
    if (kernel.empty()) fail(node, "expected a kernel_shape attribute");
    const bool ceil_mode = int_attribute(node, "ceil_mode", 0) != 0;
    Layer layer = make_layer(node, node.op_type() == "MaxPool" ? Op::kMaxPool : Op::kAvgPool);
    place_spatial(layer, x);
    layer.c_out = x[1];
    layer.ceil_mode = ceil_mode;
    const auto axes = window_axes(node, x, kernel, ceil_mode, folded);
    apply_axes(layer, axes);
    emit(node, layer);
    for (int i = 0; i < node.output_size(); ++i) set_output(node, i, window_output(x, x[1], axes));
  }

  // A zero Pad of the spatial dimensions whose only consumer is a Conv or pool (TensorFlow
  // exports' explicit SAME padding, ZeroPad2d) is folded into that window's padding, where
  // cuDNN applies it: no row of its own. Any other Pad is a copy row at the padded size.
  void pad(const onnx::NodeProto& node) {
    const Shape x = shape_of(node, 0);
    Shape pads = ints_attribute(node, "pads");  // opset < 11
    if (const auto* v = values_of(node, 1)) pads.assign(v->begin(), v->end());
    double value = float_attribute(node, "value").value_or(0.0);
    if (const auto* c = values_of(node, 2); c != nullptr && !c->empty()) value = c->front();
    const std::size_t rank = x.size();
    if (pads.size() != 2 * rank) {
      throw Unsupported{"pads not constant, or not twice the input rank"};
    }
    for (const std::int64_t p : pads) {
      if (p < 0) throw Unsupported{"a negative pad (a crop)"};
    }
    const auto consumer = sole_consumer_.find(node.output(0));
    const bool into_window = consumer != sole_consumer_.end() &&
                             (consumer->second == "Conv" || consumer->second == "MaxPool" ||
                              consumer->second == "AveragePool");
    const bool spatial_only =
        rank >= 3 && pads[0] == 0 && pads[1] == 0 && pads[rank] == 0 && pads[rank + 1] == 0;
    if (has_input(node, 3)) throw Unsupported{"a Pad of selected axes (opset 18's axes input)"};
    Shape padded = x;
    for (std::size_t i = 0; i < rank; ++i) padded[i] += pads[i] + pads[rank + i];
    if (string_attribute(node, "mode", "constant") != "constant" || value != 0.0 || !spatial_only ||
        !into_window) {
      // Reflect, edge or non-zero padding, or a pad no window takes: its own kernel, a copy
      // that writes the padded tensor (as Resize).
      Layer layer = make_layer(node, Op::kChannelShuffle);
      place(layer, padded);
      emit(node, layer);
      set_output(node, 0, padded);
      return;
    }
    Shape folded;  // the window's pads layout: spatial begins, then spatial ends
    for (std::size_t i = 2; i < rank; ++i) folded.push_back(pads[i]);
    for (std::size_t i = 2; i < rank; ++i) folded.push_back(pads[rank + i]);
    folded_pads_[node.output(0)] = {x, folded};
    set_output(node, 0, padded);
  }

  void global_pool(const onnx::NodeProto& node) {
    const Shape x = shape_of(node, 0);
    if (x.size() < 3) throw Unsupported{"expected a rank >= 3 input, got " + shape_text(x)};
    Layer layer = make_layer(node, Op::kGlobalAvgPool);
    place(layer, x);
    if (node.op_type() == "GlobalMaxPool") {
      // A max pool whose window is the whole plane.
      layer.op = Op::kMaxPool;
      layer.kernel_h = layer.h_in;
      layer.kernel_w = layer.w_in;
    }
    emit(node, layer);
    Shape out = x;
    std::fill(out.begin() + 2, out.end(), 1);
    set_output(node, 0, out);
  }

  void gemm(const onnx::NodeProto& node) {
    const Shape a = shape_of(node, 0);
    if (!has_input(node, 1)) fail(node, "expected inputs A and B");
    const Shape b = shape_of(node, 1);
    if (a.size() != 2 || b.size() != 2) {
      fail(node, "expected 2-D A and B, got " + shape_text(a) + " and " + shape_text(b));
    }
    const bool trans_a = int_attribute(node, "transA", 0) != 0;
    const bool trans_b = int_attribute(node, "transB", 0) != 0;
    const std::int64_t m = trans_a ? a[1] : a[0];
    const std::int64_t k = trans_a ? a[0] : a[1];
    const std::int64_t kb = trans_b ? b[1] : b[0];
    const std::int64_t n = trans_b ? b[0] : b[1];
    if (k != kb) {
      fail(node, "A " + shape_text(a) + " and B " + shape_text(b) + " do not multiply (transA=" +
                     std::to_string(trans_a) + ", transB=" + std::to_string(trans_b) + ")");
    }
    Layer layer = make_layer(node, Op::kLinear);
    layer.batch = m;
    layer.c_in = k;
    layer.c_out = n;
    layer.bias = has_input(node, 2);
    emit(node, layer);
    set_output(node, 0, {m, n});
  }

  // MatMul, and the INT8 ones (QLinearMatMul: B at input 3; MatMulInteger), int8 rows as
  // QLinearConv's.
  void matmul(const onnx::NodeProto& node, int b_index) {
    const Shape a = shape_of(node, 0);
    if (!has_input(node, b_index)) fail(node, "expected inputs A and B");
    const Shape b = shape_of(node, b_index);
    if (b.size() != 2) {
      // Attention's Q x K^T and similar: no weight matrix, not a linear layer.
      throw Unsupported{node.op_type() + " with a " + std::to_string(b.size()) +
                        "-D B (batched matmul) is not modelled; expected a 2-D weight"};
    }
    if (b.size() != 2 || a.empty() || a.back() != b[0]) {
      fail(node, "A " + shape_text(a) + " and B " + shape_text(b) + " do not multiply");
    }
    Layer layer = make_layer(node, Op::kLinear);
    if (node.op_type() != "MatMul") layer.dtype = options_.dtype.value_or(DType::kInt8);
    if (a.size() == 1) {
      layer.batch = 1;
    } else if (a.size() == 2) {
      layer.batch = a[0];
    } else {
      layer.batch = a[0];
      layer.h_in = product(a, 1, a.size() - 1);  // rows per batch item (e.g. tokens)
    }
    layer.c_in = b[0];
    layer.c_out = b[1];
    emit(node, layer);
    Shape out = a;
    out.back() = b[1];
    set_output(node, 0, out);
  }

  void batchnorm(const onnx::NodeProto& node) {
    const Shape x = shape_of(node, 0);
    if (x.size() < 2) fail(node, "expected an input of rank >= 2, got " + shape_text(x));
    Layer layer = make_layer(node, Op::kBatchNorm);
    place(layer, x);
    emit(node, layer);
    set_output(node, 0, x);
    for (int i = 1; i < node.output_size(); ++i) set_output(node, i, {x[1]});
  }

  void layernorm(const onnx::NodeProto& node) {
    const Shape x = shape_of(node, 0);
    const auto rank = static_cast<std::int64_t>(x.size());
    std::int64_t axis = int_attribute(node, "axis", -1);
    if (axis < 0) axis += rank;
    if (axis < 0 || axis >= rank) fail(node, "axis out of range for " + shape_text(x));
    Layer layer = make_layer(node, Op::kLayerNorm);
    // c_in = the normalized size (its scale and shift have c_in entries each).
    layer.batch = axis >= 1 ? x[0] : 1;
    layer.h_in = axis >= 1 ? product(x, 1, static_cast<std::size_t>(axis)) : 1;
    layer.c_in = product(x, static_cast<std::size_t>(axis), x.size());
    layer.c_out = layer.c_in;
    emit(node, layer);
    set_output(node, 0, x);
    Shape stats(x.begin(), x.begin() + axis);
    stats.resize(x.size(), 1);
    for (int i = 1; i < node.output_size(); ++i) set_output(node, i, stats);
  }

  void clip(const onnx::NodeProto& node) {
    const Shape x = shape_of(node, 0);
    std::optional<double> lo;
    std::optional<double> hi;
    if (auto f = float_attribute(node, "min")) lo = *f;  // opset < 11
    if (auto f = float_attribute(node, "max")) hi = *f;
    for (int i : {1, 2}) {
      if (!has_input(node, i)) continue;
      const auto* v = values_of(node, i);
      if (!v || v->size() != 1) {
        throw Unsupported{"Clip bound '" + node.input(i) + "' is not a constant scalar"};
      }
      (i == 1 ? lo : hi) = (*v)[0];
    }
    Op op = Op::kRelu6;
    if (lo && *lo == 0 && !hi) {
      op = Op::kRelu;
    } else if (!(lo && hi && *lo == 0 && *hi == 6)) {
      auto text = [](const std::optional<double>& v) {
        return v ? format_number(*v) : std::string("none");
      };
      warn("node '" + node_name(node) + "': Clip(min=" + text(lo) + ", max=" + text(hi) +
           ") modelled as relu6 (the same two-compare cost)");
    }
    Layer layer = make_layer(node, op);
    place(layer, x);
    emit(node, layer);
    set_output(node, 0, x);
  }

  static std::optional<Shape> broadcast(const Shape& a, const Shape& b) {
    Shape out(std::max(a.size(), b.size()), 1);
    for (std::size_t i = 0; i < out.size(); ++i) {
      const std::int64_t da = i < out.size() - a.size() ? 1 : a[i - (out.size() - a.size())];
      const std::int64_t db = i < out.size() - b.size() ? 1 : b[i - (out.size() - b.size())];
      if (da != db && da != 1 && db != 1) return std::nullopt;
      out[i] = da == 1 ? db : da;
    }
    return out;
  }

  void binary(const onnx::NodeProto& node) {
    const std::string& type = node.op_type();
    const bool additive = type == "Add" || type == "Sub";
    if (node.input_size() != 2) fail(node, "expected 2 inputs");
    // Shapes: activations must be known; a constant of unknown shape broadcasts away.
    Shape out;
    bool have = false;
    for (int i = 0; i < 2; ++i) {
      const bool activation = has_input(node, i) && activations_.count(node.input(i));
      const bool known =
          has_input(node, i) && (shapes_.count(node.input(i)) || inferred_.count(node.input(i)));
      if (!activation && !known) continue;
      const Shape s = shape_of(node, i);
      auto merged = have ? broadcast(out, s) : std::optional<Shape>(s);
      if (!merged) {
        fail(node, "shapes " + shape_text(out) + " and " + shape_text(s) + " do not broadcast");
      }
      out = *merged;
      have = true;
    }
    if (fold_into_producer(node, additive, out)) return;
    Layer layer = make_layer(node, additive ? Op::kAdd : Op::kMul);
    place(layer, out);
    layer.num_inputs = 2;
    emit(node, layer);
    set_output(node, 0, out);
  }

  // Two exporter patterns folded into the layer that already exists:
  //  MatMul + Add(constant bias of N) -> linear with bias (PyTorch's Linear on 3-D input);
  //  Sigmoid(x) * x -> silu (PyTorch's SiLU below opset 14, EfficientNet's Swish).
  bool fold_into_producer(const onnx::NodeProto& node, bool additive, const Shape& out) {
    if (node.op_type() != "Add" && node.op_type() != "Mul") return false;
    for (int i = 0; i < 2; ++i) {
      const std::string& mine = node.input(i);
      const std::string& other = node.input(1 - i);
      auto prod = producer_.find(mine);
      if (prod == producer_.end() || consumers_[mine] != 1) continue;
      Layer& layer = result_.network.layers[prod->second];
      if (additive && layer.op == Op::kLinear && !layer.bias && !activations_.count(other)) {
        auto s = shapes_.find(other);
        if (s == shapes_.end() || product(s->second, 0, s->second.size()) != layer.c_out ||
            s->second.empty() || s->second.back() != layer.c_out) {
          continue;
        }
        layer.bias = true;
      } else if (!additive && layer.op == Op::kSigmoid && producer_input_.count(prod->second) &&
                 producer_input_[prod->second] == other) {
        layer.op = Op::kSilu;
      } else {
        continue;
      }
      producer_[node.output(0)] = prod->second;
      set_output(node, 0, out);
      return true;
    }
    return false;
  }
  void sum(const onnx::NodeProto& node) {
    Shape out;
    for (int i = 0; i < node.input_size(); ++i) {
      const Shape s = shape_of(node, i);
      auto merged = i ? broadcast(out, s) : std::optional<Shape>(s);
      if (!merged) fail(node, "input shapes do not broadcast");
      out = *merged;
    }
    Layer layer = make_layer(node, node.input_size() == 1 ? Op::kDropout : Op::kAdd);
    place(layer, out);
    layer.num_inputs = node.input_size() == 1 ? 1 : node.input_size();
    emit(node, layer);
    set_output(node, 0, out);
  }

  void concat(const onnx::NodeProto& node) {
    Shape out = shape_of(node, 0);
    const auto rank = static_cast<std::int64_t>(out.size());
    std::int64_t axis = int_attribute(node, "axis", 1);
    if (axis < 0) axis += rank;
    if (axis < 0 || axis >= rank) fail(node, "axis out of range for " + shape_text(out));
    for (int i = 1; i < node.input_size(); ++i) {
      const Shape s = shape_of(node, i);
      if (static_cast<std::int64_t>(s.size()) != rank) fail(node, "inputs differ in rank");
      out[axis] += s[axis];
    }
    Layer layer = make_layer(node, Op::kConcat);
    if (axis == 1 || rank < 2) {
      place(layer, out);
    } else {
      // Concatenation along another axis: same bytes, so place the total as channels.
      layer.batch = out[0];
      layer.c_in = product(out, 1, out.size());
    }
    layer.c_out = layer.c_in;  // c_in = c_out = the concatenated size
    layer.num_inputs = node.input_size();
    emit(node, layer);
    set_output(node, 0, out);
  }

  static std::int64_t norm_axis(std::int64_t axis, std::size_t rank) {
    return axis < 0 ? axis + static_cast<std::int64_t>(rank) : axis;
  }

  // Split, Slice and a constant Gather are views in an eager framework (torch.chunk, narrow,
  // x[:, 0]): no kernel, so no row. Their output shapes come from ONNX's shape inference,
  // which resolves the constant starts, ends, split sizes and indices.
  void slice_view(const onnx::NodeProto& node) {
    (void)shape_of(node, 0);
    for (int i = 0; i < node.output_size(); ++i) {
      if (node.output(i).empty()) continue;
      const auto inf = inferred_.find(node.output(i));
      if (inf == inferred_.end()) {
        throw Unsupported{"the shape of output '" + node.output(i) +
                          "' is not known (ONNX shape inference could not resolve it)"};
      }
    }
    for (int i = 0; i < node.output_size(); ++i) {
      if (!node.output(i).empty()) set_output(node, i, inferred_.at(node.output(i)));
    }
  }

  // Flatten/Reshape/Squeeze/Unsqueeze: views with no kernel, emitted as "flatten" rows.
  void view(const onnx::NodeProto& node) {
    const Shape x = shape_of(node, 0);
    const std::string& type = node.op_type();
    const std::int64_t elements = product(x, 0, x.size());
    std::optional<Shape> out;
    if (type == "Flatten") {
      const std::int64_t axis = norm_axis(int_attribute(node, "axis", 1), x.size());
      if (axis < 0 || axis > static_cast<std::int64_t>(x.size())) fail(node, "axis out of range");
      out = Shape{product(x, 0, axis), product(x, axis, x.size())};
    } else if (type == "Reshape") {
      Shape target = ints_attribute(node, "shape");  // opset < 5
      const auto* v = values_of(node, 1);
      if (v) target.assign(v->begin(), v->end());
      if (v || !target.empty()) {
        const bool allow_zero = int_attribute(node, "allowzero", 0) != 0;
        std::int64_t known = 1;
        int infer = -1;
        for (std::size_t i = 0; i < target.size(); ++i) {
          if (target[i] == 0 && !allow_zero) {
            if (i >= x.size()) fail(node, "shape has 0 beyond the input rank");
            target[i] = x[i];
          }
          if (target[i] == -1) {
            if (infer >= 0) fail(node, "shape has more than one -1");
            infer = static_cast<int>(i);
          } else {
            known *= target[i];
          }
        }
        if (infer >= 0) target[infer] = known > 0 ? elements / known : 0;
        out = target;
      } else if (auto inf = inferred_.find(node.output(0)); inf != inferred_.end()) {
        out = inf->second;  // run-time shape resolved by ONNX's data propagation
      } else {
        throw Unsupported{
            "the target shape is computed at run time and ONNX shape inference "
            "could not resolve it"};
      }
    } else if (type == "Squeeze") {
      Shape axes = ints_attribute(node, "axes");
      if (const auto* a = values_of(node, 1)) axes.assign(a->begin(), a->end());
      Shape s;
      for (std::size_t i = 0; i < x.size(); ++i) {
        const bool listed = std::any_of(axes.begin(), axes.end(), [&](std::int64_t a) {
          return norm_axis(a, x.size()) == static_cast<std::int64_t>(i);
        });
        if (axes.empty() ? x[i] != 1 : !listed) s.push_back(x[i]);
      }
      out = s;
    } else {  // Unsqueeze
      Shape axes = ints_attribute(node, "axes");
      if (const auto* a = values_of(node, 1)) axes.assign(a->begin(), a->end());
      const std::size_t rank = x.size() + axes.size();
      for (auto& a : axes) a = norm_axis(a, rank);
      std::sort(axes.begin(), axes.end());
      Shape s = x;
      for (const auto a : axes) {
        if (a < 0 || a > static_cast<std::int64_t>(s.size())) fail(node, "axes out of range");
        s.insert(s.begin() + a, 1);
      }
      out = s;
    }
    if (product(*out, 0, out->size()) != elements) {
      fail(node, "cannot view " + shape_text(x) + " as " + shape_text(*out));
    }
    Layer layer = make_layer(node, Op::kFlatten);
    place(layer, x);
    emit(node, layer);
    set_output(node, 0, *out);
  }

  // A transpose moves every element once: a copy, like ShuffleNet's channel shuffle.
  // Resize/Upsample (a UNet's or an FPN's upsampling): one kernel that writes the resized
  // tensor, modelled as a copy (channel_shuffle) at the output size, whose writes dominate.
  // The size comes from ONNX shape inference (constant scales or sizes).
  void resize(const onnx::NodeProto& node) {
    (void)shape_of(node, 0);
    const auto out = inferred_.find(node.output(0));
    if (out == inferred_.end()) {
      throw Unsupported{
          "the output size is not known (ONNX shape inference could not resolve "
          "the scales or sizes)"};
    }
    Layer layer = make_layer(node, Op::kChannelShuffle);
    place(layer, out->second);
    emit(node, layer);
    set_output(node, 0, out->second);
  }

  void transpose(const onnx::NodeProto& node) {
    const Shape x = shape_of(node, 0);
    Shape perm = ints_attribute(node, "perm");
    if (perm.empty()) {
      for (std::size_t i = 0; i < x.size(); ++i) {
        perm.push_back(static_cast<std::int64_t>(x.size() - 1 - i));
      }
    }
    if (perm.size() != x.size()) fail(node, "perm does not match the input rank");
    Shape out;
    for (const auto p : perm) {
      if (p < 0 || p >= static_cast<std::int64_t>(x.size())) fail(node, "perm out of range");
      out.push_back(x[p]);
    }
    Layer layer = make_layer(node, Op::kChannelShuffle);
    place(layer, x);
    emit(node, layer);
    set_output(node, 0, out);
  }
};

onnx::ModelProto parse_model(std::string_view bytes, const std::string& source) {
  if (bytes.empty()) throw InputError(source + ": empty file; expected an ONNX model");
  onnx::ModelProto model;
  if (!model.ParseFromArray(bytes.data(), static_cast<int>(bytes.size()))) {
    throw InputError(source +
                     ": not a valid ONNX model (protobuf parsing failed; truncated or "
                     "not an .onnx file?)");
  }
  if (model.ir_version() <= 0 && model.opset_import_size() == 0) {
    throw InputError(source + ": not a valid ONNX model (no ir_version or opset_import)");
  }
  return model;
}

}  // namespace

namespace onnx_module {
namespace {

const std::vector<std::string>& supported_ops() {
  return own_supported_ops();
}

ImportResult import_bytes(std::string_view bytes, const std::string& source,
                          const ImportOptions& options) {
  if (options.batch <= 0) throw InputError(source + ": batch must be positive");
  onnx::ModelProto model = parse_model(bytes, source);
  Importer importer(source, options);
  return importer.run(std::move(model));
}

}  // namespace
}  // namespace onnx_module
}  // namespace cnnperf

extern "C" __attribute__((visibility("default"))) const cnnperf::onnx_module::Api*
cnnperf_onnx_importer(const char* abi) {
  static const cnnperf::onnx_module::Api api{&cnnperf::onnx_module::import_bytes,
                                             &cnnperf::onnx_module::supported_ops};
  if (abi == nullptr || std::string_view(abi) != cnnperf::onnx_module::kAbi) return nullptr;
  return &api;
}
