// SPDX-License-Identifier: Apache-2.0
// Helpers the commands share: comma lists, --input-size, the option of a library parameter.
#include <algorithm>
#include <array>
#include <string>
#include <utility>
#include <vector>

#include "commands.hpp"

namespace cnnperf::cli {

namespace {

// Parameters whose option is not the parameter's own name with dashes.
constexpr std::array<std::pair<const char*, const char*>, 6> kOptionOverrides{{
    {"allow_tf32", "--no-tf32"},
    {"layers_csv", "--layers"},
    {"max_energy_per_image_j", "--max-energy-j"},
    {"min_top1_percent", "--min-top1"},
    {"params", "--param"},
    {"power_limit_w", "--power-limit"},
}};

}  // namespace

std::pair<std::int64_t, std::int64_t> parse_input_size(const std::string& text) {
  if (text.empty()) return {0, 0};
  const auto x = text.find_first_of("xX");
  if (x == std::string::npos) {
    const long side = parse_positive_int(text, "--input-size");
    return {side, side};
  }
  return {parse_positive_int(text.substr(0, x), "--input-size (height of HxW)"),
          parse_positive_int(text.substr(x + 1), "--input-size (width of HxW)")};
}

std::vector<std::string> split_list(const std::string& text, const std::string& flag) {
  std::vector<std::string> items;
  std::size_t start = 0;
  while (start <= text.size()) {
    const auto comma = text.find(',', start);
    std::string item = text.substr(start, comma == std::string::npos ? text.npos : comma - start);
    item.erase(0, item.find_first_not_of(" \t"));
    item.erase(item.find_last_not_of(" \t") + 1);
    if (item.empty()) {
      throw InputError(flag + ": empty entry in '" + text + "'; expected a comma-separated list");
    }
    items.push_back(std::move(item));
    if (comma == std::string::npos) {
      break;
    }
    start = comma + 1;
  }
  return items;
}

std::string option_for_parameter(const std::string& parameter) {
  for (const auto& [name, option] : kOptionOverrides) {
    if (parameter == name) return option;
  }
  std::string option = "--" + parameter;
  std::replace(option.begin(), option.end(), '_', '-');
  return option;
}

}  // namespace cnnperf::cli
