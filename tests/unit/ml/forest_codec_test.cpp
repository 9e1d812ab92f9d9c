// SPDX-License-Identifier: Apache-2.0
// Tree arrays (src/ml/forest.hpp), the form model files store XGBoost's trees in: a forest
// decodes to one that predicts bit for bit the same, the encoding is canonical, and every
// malformed input is an InputError, never a crash or a silently different forest.
#include <bit>
#include <cmath>
#include <cstdint>
#include <functional>
#include <limits>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include <gtest/gtest.h>

#include "cnnperf/common/error.hpp"
#include "forest.hpp"

namespace cnnperf::ml_detail {
namespace {

/// A SYNTHETIC forest (random structure, features, thresholds and leaves; not a trained
/// model), nodes numbered depth first so that decoding must renumber them. Thresholds are
/// drawn from a few values per feature, as XGBoost's hist method draws them from its cuts,
/// plus 0.0 and -0.0, which must stay apart.
Forest random_forest(std::size_t n_trees, std::size_t n_features, std::uint64_t seed,
                     std::size_t cuts_per_feature) {
  std::mt19937_64 rng(seed);
  auto uniform = [&rng] { return static_cast<double>(rng() >> 11) * 0x1.0p-53; };
  Forest f;
  f.base_score = 0.375F;
  const std::function<std::uint32_t(std::uint32_t, std::uint32_t)> grow =
      [&](std::uint32_t at, std::uint32_t depth) -> std::uint32_t {
    if (depth == 6 || (depth > 0 && uniform() < 0.2)) {  // roots always split
      f.nodes[at].value = static_cast<float>(uniform() - 0.5);
      return depth;
    }
    const auto feature = static_cast<std::uint32_t>(rng() % n_features);
    const auto cut = rng() % (cuts_per_feature + 2);
    const float threshold = cut == cuts_per_feature       ? 0.0F
                            : cut == cuts_per_feature + 1 ? -0.0F
                                                          : static_cast<float>(cut) / 7.0F;
    const auto left = static_cast<std::uint32_t>(f.nodes.size());
    f.nodes.resize(f.nodes.size() + 2);
    f.nodes[at].left = static_cast<std::int32_t>(left);
    f.nodes[at].value = threshold;
    f.nodes[at].feature_and_default = feature | (rng() % 2 == 0 ? Forest::Node::kDefaultLeft : 0U);
    return std::max(grow(left, depth + 1), grow(left + 1, depth + 1));
  };
  for (std::size_t t = 0; t < n_trees; ++t) {
    const auto root = static_cast<std::uint32_t>(f.nodes.size());
    f.nodes.emplace_back();
    f.roots.push_back(root);
    f.depths.push_back(grow(root, 0));
  }
  return f;
}

/// SYNTHETIC rows: values on a threshold, one float step beside it, NaN or uniform.
std::vector<float> random_rows(std::size_t rows, std::size_t n_features, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::vector<float> x(rows * n_features);
  for (float& v : x) {
    const auto pick = rng() % 10;
    const float cut = static_cast<float>(rng() % 9) / 7.0F;
    v = pick == 0   ? std::numeric_limits<float>::quiet_NaN()
        : pick == 1 ? std::nextafter(cut, -1.0F)
        : pick == 2 ? -0.0F
        : pick < 6  ? cut
                    : static_cast<float>(rng() % 1000) / 500.0F - 0.5F;
  }
  return x;
}

std::vector<float> predict(const Forest& f, const std::vector<float>& x, std::size_t n_features) {
  std::vector<float> out(x.size() / n_features);
  f.predict(x.data(), out.size(), n_features, out.data());
  return out;
}

TEST(ForestCodec, DecodedForestPredictsBitForBitTheSame) {
  for (const std::size_t n_features : {5UL, 127UL, 128UL, 300UL}) {
    for (const std::size_t cuts : {3UL, 300UL}) {  // one-byte and two-byte threshold indices
      const Forest f = random_forest(60, n_features, n_features + cuts, cuts);
      const std::string bytes = encode_forest(f, n_features);
      const Forest g = decode_forest(bytes, n_features, "test");
      EXPECT_EQ(g.nodes.size(), f.nodes.size());
      EXPECT_EQ(g.depths, f.depths);
      EXPECT_EQ(std::bit_cast<std::uint32_t>(g.base_score),
                std::bit_cast<std::uint32_t>(f.base_score));
      const auto x = random_rows(500, n_features, 3);
      const auto a = predict(f, x, n_features);
      const auto b = predict(g, x, n_features);
      for (std::size_t r = 0; r < a.size(); ++r) {
        ASSERT_EQ(std::bit_cast<std::uint32_t>(a[r]), std::bit_cast<std::uint32_t>(b[r]))
            << n_features << " features, row " << r;
      }
      // Canonical: the decoded forest encodes to the same bytes.
      EXPECT_EQ(encode_forest(g, n_features), bytes);
    }
  }
}

TEST(ForestCodec, ZeroAndNegativeZeroThresholdsStayApart) {
  Forest f;
  f.nodes.resize(3);
  f.nodes[0] = {1, -0.0F, 0};
  f.nodes[1].value = 1.0F;
  f.nodes[2].value = 2.0F;
  f.roots = {0};
  f.depths = {1};
  const Forest g = decode_forest(encode_forest(f, 1), 1, "test");
  EXPECT_EQ(std::bit_cast<std::uint32_t>(g.nodes[0].value), std::bit_cast<std::uint32_t>(-0.0F));
}

TEST(ForestCodec, Base64RoundTripsEveryLengthAndByte) {
  std::string bytes;
  for (int i = 0; i < 256; ++i) bytes.push_back(static_cast<char>(i));
  for (std::size_t n = 0; n <= bytes.size(); n += (n < 8 ? 1 : 37)) {
    const std::string part = bytes.substr(0, n);
    const std::string text = base64_encode(part);
    EXPECT_EQ(text.size() % 4, 0U);
    EXPECT_EQ(base64_decode(text, "test", 0), part) << n;
  }
  EXPECT_EQ(base64_encode("Man"), "TWFu");
  EXPECT_EQ(base64_encode("Ma"), "TWE=");
  EXPECT_EQ(base64_encode("M"), "TQ==");
}

std::string decode_error(const std::string& text, std::size_t offset = 0) {
  try {
    (void)base64_decode(text, "f.json: x", offset);
  } catch (const InputError& e) {
    return e.what();
  }
  ADD_FAILURE() << "decoded '" << text << "'";
  return {};
}

TEST(ForestCodec, Base64RejectsOtherTextNamingTheByte) {
  EXPECT_EQ(decode_error("TWFu TWFu", 100),
            "f.json: x: byte 109: expected base64 text of a length "
            "divisible by 4");
  EXPECT_EQ(decode_error("TWFuT\\Fu", 100),
            "f.json: x: byte 105: expected a base64 character (A-Z, a-z, 0-9, '+', '/')");
  EXPECT_NE(decode_error("TW=uTWFu").find("byte 2:"), std::string::npos);
  EXPECT_NE(decode_error("T===").find("byte 1:"), std::string::npos);
  EXPECT_NE(decode_error("TQ=A").find("byte 2:"), std::string::npos);  // "=" inside
}

/// decode_forest's message for `bytes` changed by `edit`, or "" when it decoded.
std::string forest_error(const std::function<void(std::string&)>& edit) {
  const Forest f = random_forest(4, 5, 11, 3);
  std::string bytes = encode_forest(f, 5);
  edit(bytes);
  try {
    (void)decode_forest(bytes, 5, "f.json: m");
  } catch (const InputError& e) {
    return e.what();
  }
  return "";
}

void put_u32(std::string& bytes, std::size_t at, std::uint32_t v) {
  for (int i = 0; i < 4; ++i) bytes[at + i] = static_cast<char>((v >> (8 * i)) & 0xFFU);
}

TEST(ForestCodec, RejectsMalformedTreeArrays) {
  const auto expect = [](const std::function<void(std::string&)>& edit, const std::string& what) {
    const std::string message = forest_error(edit);
    EXPECT_NE(message.find("f.json: m: expected " + what), std::string::npos)
        << "got '" << message << "'";
  };
  const Forest f = random_forest(4, 5, 11, 3);
  const std::string good = encode_forest(f, 5);
  ASSERT_EQ(forest_error([](std::string&) {}), "");
  expect([](std::string& b) { b[0] = 'X'; }, "tree arrays");
  expect([](std::string& b) { b.resize(10); }, "tree arrays");
  expect([](std::string& b) { put_u32(b, 12, 6); }, "5 features");
  expect([](std::string& b) { b[16] = 3; }, "code bytes 1 or 2");
  expect([](std::string& b) { b[17] = 3; }, "code bytes 1 or 2");
  expect([](std::string& b) { put_u32(b, 20, std::bit_cast<std::uint32_t>(INFINITY)); },
         "a finite base_score");
  expect([](std::string& b) { put_u32(b, 4, 0); }, "at least one tree");
  expect([](std::string& b) { b.push_back('\0'); }, "no bytes after the leaf values");
  expect([](std::string& b) { b.pop_back(); }, "the leaf values within the data");
  expect([](std::string& b) { put_u32(b, 8, 0x7FFFFFFFU); }, "the node codes within the data");
  expect([](std::string& b) { put_u32(b, 24, 0x40000000U); }, "no more thresholds than nodes");
  // The first node's code: the root of tree 0 (random_forest's roots always split).
  const std::size_t n_thresholds = [&] {
    std::size_t n = 0;
    for (int k = 0; k < 5; ++k) {
      n += static_cast<unsigned char>(good[24 + 4 * k]) |
           (static_cast<std::size_t>(static_cast<unsigned char>(good[25 + 4 * k])) << 8);
    }
    return n;
  }();
  const std::size_t first_code = 24 + 4 * 5 + 4 * n_thresholds;
  ASSERT_NE(static_cast<unsigned char>(good[first_code]), 0xFFU);
  expect([&](std::string& b) { b[first_code] = 0x05; }, "split features below 5 (tree 0)");
  // A split turned into a leaf: the counts of leaves and splits no longer fit binary trees.
  expect([&](std::string& b) { b[first_code] = static_cast<char>(0xFF); },
         "one leaf more than splits");
  // The first threshold index past its feature's table.
  const std::size_t n_nodes = f.nodes.size();
  const std::size_t first_index = first_code + n_nodes;
  expect([&](std::string& b) { b[first_index] = static_cast<char>(0xF0); },
         "threshold indices within their feature's table (tree 0)");
  // The last leaf value NaN.
  expect([&](std::string& b) { put_u32(b, b.size() - 4, 0x7FC00000U); }, "finite leaf values");
}

TEST(ForestCodec, RejectsNodesLeftOverAfterTheLastTree) {
  // Trees [split, leaf, leaf], [leaf], [leaf]: codes S L L L L. Reordered to L L L S L the
  // counts still fit three binary trees, but the three trees end after three nodes.
  Forest f;
  f.nodes.resize(5);
  f.nodes[0] = {1, 0.5F, 0};
  for (std::size_t i = 1; i < 5; ++i) f.nodes[i].value = static_cast<float>(i);
  f.roots = {0, 3, 4};
  f.depths = {1, 0, 0};
  std::string bytes = encode_forest(f, 1);
  const std::size_t codes = 24 + 4 + 4;  // header, one table size, one threshold
  ASSERT_EQ(static_cast<unsigned char>(bytes[codes]), 0U);
  std::swap(bytes[codes], bytes[codes + 3]);
  try {
    (void)decode_forest(bytes, 1, "t");
    FAIL() << "decoded";
  } catch (const InputError& e) {
    EXPECT_EQ(std::string(e.what()), "t: expected 5 nodes in 3 trees, got 3");
  }
}

}  // namespace
}  // namespace cnnperf::ml_detail
