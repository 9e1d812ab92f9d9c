// SPDX-License-Identifier: Apache-2.0
// TrainingRowSet: the hashes of a model's training rows as a Golomb-Rice coded set.
//
// Each row hash is mapped onto [0, rows * 2^rice_bits); the sorted values' gaps are then
// nearly geometric, and Rice coding stores each in about rice_bits + 1.6 bits. That keeps the
// bundled model's 318,390 rows under 0.7 MB, where a plain list of 64-bit hashes would take
// 2.5 MB (3.4 MB as base64 text).
#include "cnnperf/ml/training_row_set.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <string_view>

#include "cnnperf/common/error.hpp"
#include "cnnperf/common/io.hpp"
#include "cnnperf/model/layer_io.hpp"

namespace cnnperf {

namespace {

constexpr std::string_view kBase64Alphabet =
    "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

std::string base64_encode(const std::vector<std::uint8_t>& bytes) {
  std::string out;
  out.reserve((bytes.size() + 2) / 3 * 4);
  for (std::size_t i = 0; i < bytes.size(); i += 3) {
    const std::size_t n = std::min<std::size_t>(3, bytes.size() - i);
    std::uint32_t v = static_cast<std::uint32_t>(bytes[i]) << 16;
    if (n > 1) v |= static_cast<std::uint32_t>(bytes[i + 1]) << 8;
    if (n > 2) v |= bytes[i + 2];
    for (std::size_t k = 0; k < 4; ++k) {
      out += k <= n ? kBase64Alphabet[(v >> (18 - 6 * k)) & 63] : '=';
    }
  }
  return out;
}

// nullopt on anything but canonical padded base64.
std::optional<std::vector<std::uint8_t>> base64_decode(std::string_view text) {
  if (text.size() % 4 != 0) return std::nullopt;
  std::vector<std::uint8_t> out;
  out.reserve(text.size() / 4 * 3);
  for (std::size_t i = 0; i < text.size(); i += 4) {
    std::uint32_t v = 0;
    std::size_t pad = 0;
    for (std::size_t k = 0; k < 4; ++k) {
      const char c = text[i + k];
      std::uint32_t digit = 0;
      if (c == '=' && i + 4 == text.size() && k >= 2) {
        ++pad;
      } else {
        const auto at = kBase64Alphabet.find(c);
        if (at == std::string_view::npos || pad > 0) return std::nullopt;
        digit = static_cast<std::uint32_t>(at);
      }
      v = (v << 6) | digit;
    }
    out.push_back(static_cast<std::uint8_t>(v >> 16));
    if (pad < 2) out.push_back(static_cast<std::uint8_t>(v >> 8));
    if (pad < 1) out.push_back(static_cast<std::uint8_t>(v));
  }
  return out;
}

std::uint64_t fnv1a(std::string_view text) {
  std::uint64_t hash = 1469598103934665603ULL;
  for (const unsigned char c : text) {
    hash ^= c;
    hash *= 1099511628211ULL;
  }
  return hash;
}

// splitmix64's finalizer: FNV-1a's low bits are weak, and the set keeps the high ones of a
// product with the hash, which must be uniform.
std::uint64_t mix(std::uint64_t x) {
  x ^= x >> 30;
  x *= 0xbf58476d1ce4e5b9ULL;
  x ^= x >> 27;
  x *= 0x94d049bb133111ebULL;
  x ^= x >> 31;
  return x;
}

// The high 64 bits of a * b (portable: no 128-bit integer type in ISO C++).
std::uint64_t multiply_high(std::uint64_t a, std::uint64_t b) {
  const std::uint64_t a_lo = a & 0xffffffffU;
  const std::uint64_t a_hi = a >> 32;
  const std::uint64_t b_lo = b & 0xffffffffU;
  const std::uint64_t b_hi = b >> 32;
  const std::uint64_t lo_lo = a_lo * b_lo;
  const std::uint64_t hi_lo = a_hi * b_lo;
  const std::uint64_t lo_hi = a_lo * b_hi;
  const std::uint64_t cross = (lo_lo >> 32) + (hi_lo & 0xffffffffU) + lo_hi;
  return a_hi * b_hi + (hi_lo >> 32) + (cross >> 32);
}

class BitWriter {
 public:
  void put(bool bit) {
    if (used_ % 8 == 0) bytes_.push_back(0);
    if (bit) bytes_.back() |= static_cast<std::uint8_t>(0x80U >> (used_ % 8));
    ++used_;
  }
  [[nodiscard]] const std::vector<std::uint8_t>& bytes() const { return bytes_; }

 private:
  std::vector<std::uint8_t> bytes_;
  std::size_t used_ = 0;
};

class BitReader {
 public:
  explicit BitReader(const std::vector<std::uint8_t>& bytes) : bytes_(bytes) {}
  // false at the end of the bits
  bool get(bool& bit) {
    if (pos_ >= bytes_.size() * 8) return false;
    bit = ((bytes_[pos_ / 8] >> (7 - pos_ % 8)) & 1U) != 0;
    ++pos_;
    return true;
  }

 private:
  const std::vector<std::uint8_t>& bytes_;
  std::size_t pos_ = 0;
};

}  // namespace

std::uint64_t training_row_hash(const TrainingData& data, std::size_t row) {
  const Layer& layer = data.layers.at(row);
  // Fields joined by a unit separator, which no field holds.
  std::string key = join(layer_csv_fields(layer), ",");
  for (const std::string& part :
       {std::to_string(layer.pad_bottom()), std::to_string(layer.pad_right()),
        std::string(layer.ceil_mode ? "1" : "0"), to_string(layer.activation),
        to_string(layer.optimizer), data.gpus.at(row).name, data.sources.at(row)}) {
    key += '\x1f';
    key += part;
  }
  return mix(fnv1a(key));
}

std::optional<TrainingRowSet> TrainingRowSet::of(const TrainingData& data) {
  std::vector<std::uint64_t> hashes(data.layers.size());
  for (std::size_t i = 0; i < hashes.size(); ++i) hashes[i] = training_row_hash(data, i);
  return of_hashes(std::move(hashes));
}

std::optional<TrainingRowSet> TrainingRowSet::of_hashes(std::vector<std::uint64_t> hashes) {
  std::sort(hashes.begin(), hashes.end());
  hashes.erase(std::unique(hashes.begin(), hashes.end()), hashes.end());
  TrainingRowSet set;
  set.rows_ = hashes.size();
  if (set.rows_ == 0) return std::nullopt;
  // About rice_bits + 2 bits a row must fit kMaxBytes.
  const std::size_t bits_per_row = kMaxBytes * 8 / set.rows_;
  set.rice_bits_ = static_cast<int>(
      std::min<std::size_t>(kMaxRiceBits, bits_per_row > 2 ? bits_per_row - 2 : std::size_t{0}));
  if (set.rice_bits_ < kMinRiceBits) return std::nullopt;
  set.values_.reserve(hashes.size());
  for (const auto h : hashes) set.values_.push_back(set.reduce(h));
  // reduce() keeps the order; two hashes may meet in one value.
  set.values_.erase(std::unique(set.values_.begin(), set.values_.end()), set.values_.end());
  return set;
}

std::uint64_t TrainingRowSet::reduce(std::uint64_t hash) const {
  // [0, rows * 2^rice_bits) by a multiply-high: uniform, and monotonic in the hash.
  return multiply_high(hash, static_cast<std::uint64_t>(rows_) << rice_bits_);
}

bool TrainingRowSet::contains(std::uint64_t hash) const {
  return std::binary_search(values_.begin(), values_.end(), reduce(hash));
}

double TrainingRowSet::false_positive_rate() const {
  return std::ldexp(1.0, -rice_bits_);
}

nlohmann::json TrainingRowSet::to_json() const {
  BitWriter bits;
  std::uint64_t previous = 0;
  for (const auto v : values_) {
    const std::uint64_t gap = v - previous;
    previous = v;
    for (std::uint64_t q = gap >> rice_bits_; q > 0; --q) bits.put(true);
    bits.put(false);
    for (int b = rice_bits_ - 1; b >= 0; --b) bits.put(((gap >> b) & 1U) != 0);
  }
  return {{"hash_version", kHashVersion},
          {"hash",
           "FNV-1a 64 of the layer's canonical columns, padding ends, ceil_mode, "
           "activation, optimizer, GPU database name and source, splitmix64-finalized"},
          {"rows", rows_},
          {"values", values_.size()},
          {"rice_bits", rice_bits_},
          {"false_positive_rate", false_positive_rate()},
          {"golomb_rice_base64", base64_encode(bits.bytes())}};
}

std::optional<TrainingRowSet> TrainingRowSet::from_metadata(const nlohmann::json& metadata,
                                                            const std::string& where) {
  if (!metadata.is_object() || !metadata.contains(kTrainingRowsKey)) return std::nullopt;
  const auto& j = metadata.at(kTrainingRowsKey);
  const std::string at = where + "." + kTrainingRowsKey;
  if (!j.is_object()) throw InputError(at + ": expected an object, got " + j.type_name());
  const auto integer = [&](const char* key, std::uint64_t min, std::uint64_t max) {
    // Parsed from text a non-negative integer is unsigned; built in memory it may be signed.
    const bool integral = j.contains(key) && j.at(key).is_number_integer() &&
                          (j.at(key).is_number_unsigned() || j.at(key).get<std::int64_t>() >= 0);
    if (!integral || j.at(key).get<std::uint64_t>() < min || j.at(key).get<std::uint64_t>() > max) {
      throw InputError(at + "." + key + ": expected an integer in [" + std::to_string(min) + ", " +
                       std::to_string(max) + "]");
    }
    return j.at(key).get<std::uint64_t>();
  };
  (void)integer("hash_version", kHashVersion, kHashVersion);
  TrainingRowSet set;
  // A larger count would make the value range overflow 64 bits.
  set.rows_ = integer("rows", 1, std::uint64_t{1} << 40);
  set.rice_bits_ = static_cast<int>(integer("rice_bits", kMinRiceBits, kMaxRiceBits));
  const std::uint64_t count = integer("values", 1, set.rows_);
  const auto text = j.find("golomb_rice_base64");
  std::optional<std::vector<std::uint8_t>> bytes;
  if (text != j.end() && text->is_string()) {
    bytes = base64_decode(text->get_ref<const std::string&>());
  }
  if (!bytes) throw InputError(at + ".golomb_rice_base64: expected a base64 string");
  const std::uint64_t limit = set.rows_ << set.rice_bits_;
  BitReader bits(*bytes);
  std::uint64_t value = 0;
  set.values_.reserve(count);
  const auto corrupt = [&] {
    throw InputError(at + ".golomb_rice_base64: expected " + std::to_string(count) +
                     " increasing values below rows x 2^rice_bits (the set is corrupt)");
  };
  for (std::uint64_t i = 0; i < count; ++i) {
    std::uint64_t q = 0;
    bool bit = false;
    while (true) {
      if (!bits.get(bit)) corrupt();
      if (!bit) break;
      if (++q > set.rows_) corrupt();  // keeps q << rice_bits within 64 bits
    }
    std::uint64_t r = 0;
    for (int b = 0; b < set.rice_bits_; ++b) {
      if (!bits.get(bit)) corrupt();
      r = (r << 1) | (bit ? 1U : 0U);
    }
    const std::uint64_t gap = (q << set.rice_bits_) | r;
    if ((i > 0 && gap == 0) || gap >= limit - value) corrupt();
    value += gap;
    set.values_.push_back(value);
  }
  return set;
}

}  // namespace cnnperf
