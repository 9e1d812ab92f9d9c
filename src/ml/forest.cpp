// SPDX-License-Identifier: Apache-2.0
// Tree arrays (forest.hpp): the compact form in which a model file stores an XGBoost
// ensemble. XGBoost's own JSON spends ~55 bytes a node (its ten per-node arrays as decimal
// text, four of them unused by prediction); this form spends ~3.5: a byte per node for the
// feature, a byte per split for its threshold (XGBoost's hist method draws each feature's
// thresholds from at most max_bin cut points) and the leaf values as float32.
#include "forest.hpp"

#include <array>
#include <bit>
#include <limits>

#include "cnnperf/common/error.hpp"

namespace cnnperf::ml_detail {
namespace {

constexpr std::string_view kMagic = "CPT1";
constexpr std::size_t kHeaderBytes = 24;  // magic, trees, nodes, features, widths, base_score

void put_u32(std::string& out, std::uint32_t v) {
  for (int i = 0; i < 4; ++i) out.push_back(static_cast<char>((v >> (8 * i)) & 0xFFU));
}

void put_uint(std::string& out, std::uint32_t v, std::size_t width) {
  for (std::size_t i = 0; i < width; ++i) out.push_back(static_cast<char>((v >> (8 * i)) & 0xFFU));
}

std::uint32_t get_uint(const unsigned char* p, std::size_t width) {
  std::uint32_t v = 0;
  for (std::size_t i = 0; i < width; ++i) v |= static_cast<std::uint32_t>(p[i]) << (8 * i);
  return v;
}

float get_f32(const unsigned char* p) {
  return std::bit_cast<float>(get_uint(p, 4));
}

}  // namespace

std::string encode_forest(const Forest& forest, std::size_t n_features) {
  if (n_features == 0 || n_features > 0x7FFF) {
    throw Error("tree arrays: " + std::to_string(n_features) + " features (1 to 32767 fit)");
  }
  // Codes: all ones is a leaf, so a byte holds features 0..126 (126 | 0x80 = 0xFE).
  const std::size_t code_bytes = n_features <= 0x7F ? 1 : 2;
  const std::uint32_t leaf_code = code_bytes == 1 ? 0xFFU : 0xFFFFU;
  const std::uint32_t default_bit = code_bytes == 1 ? 0x80U : 0x8000U;

  // Each tree's nodes breadth first, the order the format stores them in.
  std::vector<std::uint32_t> order;
  order.reserve(forest.nodes.size());
  for (const std::uint32_t root : forest.roots) {
    const std::size_t first = order.size();
    order.push_back(root);
    for (std::size_t j = first; j < order.size(); ++j) {
      const Forest::Node& n = forest.nodes[order[j]];
      if (n.left < 0) continue;
      order.push_back(static_cast<std::uint32_t>(n.left));
      order.push_back(static_cast<std::uint32_t>(n.left) + 1);
    }
  }
  // Per feature, its distinct thresholds (by bit pattern: equal as floats is not enough
  // for 0.0 and -0.0), sorted so the file is the same for the same forest.
  std::vector<std::vector<std::uint32_t>> tables(n_features);
  for (const std::uint32_t i : order) {
    const Forest::Node& n = forest.nodes[i];
    if (n.left < 0) continue;
    tables.at(n.feature_and_default & ~Forest::Node::kDefaultLeft)
        .push_back(std::bit_cast<std::uint32_t>(n.value));
  }
  std::size_t largest = 0;
  for (auto& t : tables) {
    std::sort(t.begin(), t.end());
    t.erase(std::unique(t.begin(), t.end()), t.end());
    largest = std::max(largest, t.size());
  }
  const std::size_t index_bytes = largest <= 0x100 ? 1 : largest <= 0x10000 ? 2 : 4;

  std::string out(kMagic);
  put_u32(out, static_cast<std::uint32_t>(forest.roots.size()));
  put_u32(out, static_cast<std::uint32_t>(order.size()));
  put_u32(out, static_cast<std::uint32_t>(n_features));
  out.push_back(static_cast<char>(code_bytes));
  out.push_back(static_cast<char>(index_bytes));
  put_uint(out, 0, 2);
  put_u32(out, std::bit_cast<std::uint32_t>(forest.base_score));
  for (const auto& t : tables) put_u32(out, static_cast<std::uint32_t>(t.size()));
  for (const auto& t : tables) {
    for (const std::uint32_t bits : t) put_u32(out, bits);
  }
  for (const std::uint32_t i : order) {
    const Forest::Node& n = forest.nodes[i];
    if (n.left < 0) {
      put_uint(out, leaf_code, code_bytes);
    } else {
      const std::uint32_t feature = n.feature_and_default & ~Forest::Node::kDefaultLeft;
      const bool default_left = (n.feature_and_default & Forest::Node::kDefaultLeft) != 0;
      put_uint(out, feature | (default_left ? default_bit : 0U), code_bytes);
    }
  }
  for (const std::uint32_t i : order) {
    const Forest::Node& n = forest.nodes[i];
    if (n.left < 0) continue;
    const auto& t = tables[n.feature_and_default & ~Forest::Node::kDefaultLeft];
    const auto at = std::lower_bound(t.begin(), t.end(), std::bit_cast<std::uint32_t>(n.value));
    put_uint(out, static_cast<std::uint32_t>(at - t.begin()), index_bytes);
  }
  for (const std::uint32_t i : order) {
    const Forest::Node& n = forest.nodes[i];
    if (n.left < 0) put_u32(out, std::bit_cast<std::uint32_t>(n.value));
  }
  return out;
}

Forest decode_forest(std::string_view bytes, std::size_t n_features, const std::string& where) {
  const auto fail = [&where](const std::string& expected) -> void {
    throw InputError(where + ": expected " + expected);
  };
  const auto* const data = reinterpret_cast<const unsigned char*>(bytes.data());
  if (bytes.size() < kHeaderBytes || bytes.substr(0, 4) != kMagic) {
    fail("tree arrays (starting \"CPT1\")");
  }
  const std::uint32_t n_trees = get_uint(data + 4, 4);
  const std::uint32_t n_nodes = get_uint(data + 8, 4);
  const std::uint32_t file_features = get_uint(data + 12, 4);
  const std::size_t code_bytes = data[16];
  const std::size_t index_bytes = data[17];
  Forest forest;
  forest.base_score = get_f32(data + 20);
  if (file_features != n_features) {
    fail(std::to_string(n_features) + " features (the regressor's n_features), got " +
         std::to_string(file_features));
  }
  if ((code_bytes != 1 && code_bytes != 2) ||
      (index_bytes != 1 && index_bytes != 2 && index_bytes != 4) || get_uint(data + 18, 2) != 0) {
    fail("code bytes 1 or 2, index bytes 1, 2 or 4 and two zero bytes in the header");
  }
  if (code_bytes == 1 && n_features > 0x7F) fail("2 code bytes for more than 127 features");
  if (!std::isfinite(forest.base_score)) fail("a finite base_score");
  if (n_trees == 0 || n_nodes < n_trees ||
      n_nodes > static_cast<std::uint32_t>(std::numeric_limits<std::int32_t>::max())) {
    fail("at least one tree and at least one node per tree");
  }
  // Section offsets; every size is checked against what is left, in 64 bits.
  std::size_t pos = kHeaderBytes;
  const auto take = [&](std::uint64_t count, std::size_t width, const char* what) {
    const std::uint64_t size = count * width;
    if (size > bytes.size() - pos) fail(std::string(what) + " within the data");
    const std::size_t at = pos;
    pos += static_cast<std::size_t>(size);
    return at;
  };
  const std::size_t sizes_at = take(n_features, 4, "the threshold table sizes");
  std::vector<std::uint32_t> table_begin(n_features + 1, 0);
  std::uint64_t n_thresholds = 0;
  for (std::size_t f = 0; f < n_features; ++f) {
    table_begin[f] = static_cast<std::uint32_t>(n_thresholds);
    n_thresholds += get_uint(data + sizes_at + 4 * f, 4);
    if (n_thresholds > n_nodes) fail("no more thresholds than nodes");
  }
  table_begin[n_features] = static_cast<std::uint32_t>(n_thresholds);
  const std::size_t tables_at = take(n_thresholds, 4, "the threshold tables");
  std::vector<float> thresholds(n_thresholds);
  for (std::size_t i = 0; i < thresholds.size(); ++i) {
    thresholds[i] = get_f32(data + tables_at + 4 * i);
  }
  const std::size_t codes_at = take(n_nodes, code_bytes, "the node codes");
  const std::uint32_t leaf_code = code_bytes == 1 ? 0xFFU : 0xFFFFU;
  const std::uint32_t default_bit = code_bytes == 1 ? 0x80U : 0x8000U;
  std::uint64_t n_leaves = 0;
  for (std::size_t i = 0; i < n_nodes; ++i) {
    n_leaves += get_uint(data + codes_at + code_bytes * i, code_bytes) == leaf_code ? 1 : 0;
  }
  // A binary tree has one leaf more than splits.
  if (n_leaves != (static_cast<std::uint64_t>(n_nodes) + n_trees) / 2 ||
      (n_nodes + n_trees) % 2 != 0) {
    fail("one leaf more than splits in every tree");
  }
  const std::size_t indices_at = take(n_nodes - n_leaves, index_bytes, "the threshold indices");
  const std::size_t leaves_at = take(n_leaves, 4, "the leaf values");
  if (pos != bytes.size()) fail("no bytes after the leaf values");

  forest.nodes.resize(n_nodes);
  forest.roots.reserve(n_trees);
  forest.depths.reserve(n_trees);
  std::size_t node = 0;
  std::size_t split = 0;
  std::size_t leaf = 0;
  for (std::uint32_t t = 0; t < n_trees; ++t) {
    const std::size_t base = node;
    std::size_t allocated = 1;  // nodes of this tree known so far: the root and split children
    std::size_t level_end = 1;  // breadth first, where the current depth's nodes end
    std::uint32_t depth = 0;
    for (std::size_t j = 0; j < allocated; ++j, ++node) {
      if (j == level_end) {
        ++depth;
        level_end = allocated;
      }
      if (node == n_nodes) fail("tree " + std::to_string(t) + " to end within the node count");
      Forest::Node& out = forest.nodes[node];
      const std::uint32_t code = get_uint(data + codes_at + code_bytes * node, code_bytes);
      if (code == leaf_code) {
        out.value = get_f32(data + leaves_at + 4 * leaf++);
        if (!std::isfinite(out.value)) fail("finite leaf values (tree " + std::to_string(t) + ")");
        continue;
      }
      const std::uint32_t feature = code & ~default_bit;
      if (feature >= n_features) {
        fail("split features below " + std::to_string(n_features) + " (tree " + std::to_string(t) +
             ")");
      }
      const std::uint32_t index = get_uint(data + indices_at + index_bytes * split++, index_bytes);
      if (index >= table_begin[feature + 1] - table_begin[feature]) {
        fail("threshold indices within their feature's table (tree " + std::to_string(t) + ")");
      }
      out.value = thresholds[table_begin[feature] + index];
      out.left = static_cast<std::int32_t>(base + allocated);
      out.feature_and_default =
          feature | ((code & default_bit) != 0 ? Forest::Node::kDefaultLeft : 0U);
      allocated += 2;
    }
    forest.roots.push_back(static_cast<std::uint32_t>(base));
    forest.depths.push_back(depth);
  }
  if (node != n_nodes) {
    fail(std::to_string(n_nodes) + " nodes in " + std::to_string(n_trees) + " trees, got " +
         std::to_string(node));
  }
  return forest;
}

namespace {

constexpr std::string_view kBase64Alphabet =
    "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

/// Each character's 6-bit value, 0xFF for characters outside the alphabet.
constexpr std::array<std::uint8_t, 256> base64_values() {
  std::array<std::uint8_t, 256> v{};
  v.fill(0xFF);
  for (std::size_t i = 0; i < kBase64Alphabet.size(); ++i) {
    v[static_cast<unsigned char>(kBase64Alphabet[i])] = static_cast<std::uint8_t>(i);
  }
  return v;
}

constexpr std::array<std::uint8_t, 256> kBase64Values = base64_values();

}  // namespace

std::string base64_encode(std::string_view bytes) {
  std::string out;
  out.reserve((bytes.size() + 2) / 3 * 4);
  const auto* p = reinterpret_cast<const unsigned char*>(bytes.data());
  std::size_t i = 0;
  for (; i + 3 <= bytes.size(); i += 3) {
    const std::uint32_t v = (std::uint32_t{p[i]} << 16) | (std::uint32_t{p[i + 1]} << 8) | p[i + 2];
    for (const int shift : {18, 12, 6, 0}) out.push_back(kBase64Alphabet[(v >> shift) & 0x3FU]);
  }
  const std::size_t rest = bytes.size() - i;
  if (rest > 0) {
    const std::uint32_t v =
        (std::uint32_t{p[i]} << 16) | (rest == 2 ? std::uint32_t{p[i + 1]} << 8 : 0U);
    out.push_back(kBase64Alphabet[(v >> 18) & 0x3FU]);
    out.push_back(kBase64Alphabet[(v >> 12) & 0x3FU]);
    out.push_back(rest == 2 ? kBase64Alphabet[(v >> 6) & 0x3FU] : '=');
    out.push_back('=');
  }
  return out;
}

std::string base64_decode(std::string_view text, const std::string& where, std::size_t offset) {
  const auto fail = [&](std::size_t at, const std::string& expected) -> void {
    throw InputError(where + ": byte " + std::to_string(offset + at) + ": expected " + expected);
  };
  if (text.size() % 4 != 0) fail(text.size(), "base64 text of a length divisible by 4");
  std::size_t padding = 0;
  if (!text.empty() && text.back() == '=') padding = text[text.size() - 2] == '=' ? 2 : 1;
  std::string out(text.size() / 4 * 3 - padding, '\0');
  const auto* p = reinterpret_cast<const unsigned char*>(text.data());
  auto* o = reinterpret_cast<unsigned char*>(out.data());
  const std::size_t full = padding > 0 ? text.size() - 4 : text.size();
  for (std::size_t i = 0; i < full; i += 4, o += 3) {
    const std::uint32_t a = kBase64Values[p[i]];
    const std::uint32_t b = kBase64Values[p[i + 1]];
    const std::uint32_t c = kBase64Values[p[i + 2]];
    const std::uint32_t d = kBase64Values[p[i + 3]];
    if ((a | b | c | d) > 0x3FU) {
      std::size_t k = i;
      while (kBase64Values[p[k]] <= 0x3FU) ++k;
      fail(k, "a base64 character (A-Z, a-z, 0-9, '+', '/')");
    }
    const std::uint32_t v = (a << 18) | (b << 12) | (c << 6) | d;
    o[0] = static_cast<unsigned char>(v >> 16);
    o[1] = static_cast<unsigned char>(v >> 8);
    o[2] = static_cast<unsigned char>(v);
  }
  if (padding > 0) {
    const std::size_t i = full;
    const std::size_t kept = 4 - padding;  // characters before the '='s
    std::uint32_t v = 0;
    for (std::size_t k = 0; k < 4; ++k) {
      const std::uint32_t c = k < kept ? kBase64Values[p[i + k]] : 0U;
      if (c > 0x3FU || (k >= kept && p[i + k] != '=')) fail(i + k, "a base64 character");
      v |= c << (18 - 6 * k);
    }
    o[0] = static_cast<unsigned char>(v >> 16);
    if (kept == 3) o[1] = static_cast<unsigned char>(v >> 8);
  }
  return out;
}

}  // namespace cnnperf::ml_detail
