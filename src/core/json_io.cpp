// SPDX-License-Identifier: Apache-2.0
#include "cnnperf/json_io.hpp"

#include "cnnperf/error.hpp"
#include "cnnperf/io.hpp"

namespace cnnperf {

nlohmann::json parse_json_text(std::string_view text, const std::string& name) {
  try {
    return nlohmann::json::parse(text);
  } catch (const nlohmann::json::exception& e) {  // parse errors and number overflows
    std::string what = e.what();
    // Drop nlohmann's "[json.exception.parse_error.101] " prefix; keep line/column.
    if (const auto pos = what.find("] "); pos != std::string::npos) {
      what = what.substr(pos + 2);
    }
    throw InputError(name + ": invalid JSON: " + what);
  }
}

nlohmann::json read_json_file(const std::string& path) {
  return parse_json_text(read_text_file(path), path);
}

}  // namespace cnnperf
