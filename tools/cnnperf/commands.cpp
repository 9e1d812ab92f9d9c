// SPDX-License-Identifier: Apache-2.0
// Library parameter names to the options that set them.
#include <algorithm>
#include <array>
#include <string>
#include <utility>

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

std::string option_for_parameter(const std::string& parameter) {
  for (const auto& [name, option] : kOptionOverrides) {
    if (parameter == name) return option;
  }
  std::string option = "--" + parameter;
  std::replace(option.begin(), option.end(), '_', '-');
  return option;
}

}  // namespace cnnperf::cli
