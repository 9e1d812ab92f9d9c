// SPDX-License-Identifier: Apache-2.0
// A gbtree ensemble (XGBoost's, one output) as flat arrays, its evaluation, and its compact
// binary form ("tree arrays", the model file's `cnnperf-trees` format, docs/data-formats.md).
// Private to src/ml (not installed).
#pragma once

#include <algorithm>
#include <array>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace cnnperf::ml_detail {

/// A gbtree ensemble with one output, as flat arrays.
struct Forest {
  /// One tree node. A leaf has left < 0 and its value is the leaf value; a split sends
  /// `feature value < value` to `left` and everything else to left + 1 (XGBoost allocates
  /// the two children together and its predictor relies on it).
  struct Node {
    static constexpr std::uint32_t kDefaultLeft = 0x80000000U;
    std::int32_t left = -1;
    float value = 0.0F;
    /// Split feature index, plus kDefaultLeft when a missing (NaN) value goes left. 12-byte
    /// nodes: a fresh process pays a page fault per 4 kB it writes (~330,000 nodes here).
    std::uint32_t feature_and_default = 0;
  };
  float base_score = 0.0F;
  std::vector<std::uint32_t> roots;   ///< index of each tree's root in `nodes`, in tree order
  std::vector<std::uint32_t> depths;  ///< each tree's depth (splits root to deepest leaf)
  std::vector<Node> nodes;

  [[nodiscard]] float leaf(std::uint32_t root, const float* row) const {
    std::uint32_t i = root;
    while (nodes[i].left >= 0) i = step(i, row);
    return nodes[i].value;
  }

  /// Sums of `n_rows` rows (row r at rows + r * stride) into out[0..n_rows). Each row's leaves
  /// are added in tree order, as one row at a time would; the rows go in blocks so a tree's
  /// nodes stay in cache across a block (a 1,500-tree booster is ~7 MB of nodes, and walking
  /// it row by row missed the cache at nearly every node).
  /// Within a block, kLanes rows descend a tree together for the tree's depth, a leaf
  /// keeping its index: their node loads are independent, so they overlap instead of waiting
  /// on each other as one row's chain of loads must.
  void predict(const float* rows, std::size_t n_rows, std::size_t stride, float* out) const {
    constexpr std::size_t kBlock = 64;
    constexpr std::size_t kLanes = 8;
    for (std::size_t b = 0; b < n_rows; b += kBlock) {
      const std::size_t n = std::min(kBlock, n_rows - b);
      float* sums = out + b;
      std::fill(sums, sums + n, base_score);
      for (std::size_t t = 0; t < roots.size(); ++t) {
        const std::uint32_t root = roots[t];
        std::size_t j = 0;
        for (; j + kLanes <= n; j += kLanes) {
          std::array<std::uint32_t, kLanes> at{};
          at.fill(root);
          const float* lane_rows = rows + (b + j) * stride;
          for (std::uint32_t d = 0; d < depths[t]; ++d) {
            for (std::size_t k = 0; k < kLanes; ++k) at[k] = step(at[k], lane_rows + k * stride);
          }
          for (std::size_t k = 0; k < kLanes; ++k) sums[j + k] += nodes[at[k]].value;
        }
        for (; j < n; ++j) sums[j] += leaf(root, rows + (b + j) * stride);
      }
    }
  }

 private:
  /// One level down from node i (a leaf stays where it is).
  [[nodiscard]] std::uint32_t step(std::uint32_t i, const float* row) const {
    const Node& n = nodes[i];
    if (n.left < 0) return i;
    const float v = row[n.feature_and_default & ~Node::kDefaultLeft];
    const bool default_left = (n.feature_and_default & Node::kDefaultLeft) != 0;
    const bool go_right = std::isnan(v) ? !default_left : !(v < n.value);
    return static_cast<std::uint32_t>(n.left) + (go_right ? 1U : 0U);
  }
};

/// The forest as tree arrays (little-endian; docs/data-formats.md):
///   "CPT1", u32 trees, u32 nodes, u32 features, u8 code bytes (1 or 2), u8 index bytes
///   (1, 2 or 4), u16 0, f32 base_score; u32 table size per feature, then each feature's
///   distinct split thresholds (f32); then per node, trees in order and each tree breadth
///   first (the children of a tree's k-th split are its nodes 2k+1 and 2k+2): a code, all
///   ones for a leaf, else the split feature plus the top bit when a missing value goes left;
///   then per split the index of its threshold in its feature's table; then per leaf its value
///   (f32). Every float is stored bit for bit, so the decoded forest predicts exactly as this
///   one does. `n_features` bounds the split features.
[[nodiscard]] std::string encode_forest(const Forest& forest, std::size_t n_features);
/// Reads encode_forest's bytes; throws InputError "<where>: expected ..." on anything else.
[[nodiscard]] Forest decode_forest(std::string_view bytes, std::size_t n_features,
                                   const std::string& where);

/// Standard base64 (RFC 4648, with '=' padding, no line breaks).
[[nodiscard]] std::string base64_encode(std::string_view bytes);
/// Decodes base64_encode's text; throws InputError "<where>: byte N: expected ..." (N counted
/// from `offset`, the text's position in its file) on any other character or length.
[[nodiscard]] std::string base64_decode(std::string_view text, const std::string& where,
                                        std::size_t offset);

}  // namespace cnnperf::ml_detail
