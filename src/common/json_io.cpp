// SPDX-License-Identifier: Apache-2.0
#include "cnnperf/common/json_io.hpp"

#include <string>
#include <unordered_set>
#include <vector>

#include "cnnperf/common/error.hpp"
#include "cnnperf/common/io.hpp"

namespace cnnperf {
namespace {

// JSON allows a key twice in one object and nlohmann keeps the last silently, so
// {"c_in": 3, "c_in": 5} would be read as 5 without a word. The parser's callback tracks where
// it is (object keys and array indices) to name the repeated key's place.
class DuplicateKeyCheck {
 public:
  explicit DuplicateKeyCheck(const std::string& name) : name_(name) {}

  bool operator()(int /*depth*/, nlohmann::json::parse_event_t event, nlohmann::json& parsed) {
    using Event = nlohmann::json::parse_event_t;
    switch (event) {
      case Event::object_start:
      case Event::array_start:
        // What reads the document walks it recursively: past this depth a hostile file
        // would overflow the stack instead of being refused.
        if (frames_.size() >= kMaxJsonDepth) {
          throw InputError(name_ + ": arrays or objects nested deeper than " +
                           std::to_string(kMaxJsonDepth) +
                           " levels; expected the shallow structure of a cnnperf input");
        }
        frames_.emplace_back().array = event == Event::array_start;
        break;
      case Event::key: {
        Frame& top = frames_.back();
        top.key = parsed.get<std::string>();
        if (!top.keys.insert(top.key).second) {
          throw InputError(name_ + ": " + path() + ": key given twice in one object (JSON " +
                           "readers keep only one of them)");
        }
        break;
      }
      case Event::object_end:
      case Event::array_end:
        frames_.pop_back();
        element_done();
        break;
      case Event::value: element_done(); break;
    }
    return true;
  }

 private:
  struct Frame {
    bool array = false;
    std::size_t count = 0;
    std::string key;
    std::unordered_set<std::string> keys;
  };
  const std::string& name_;
  std::vector<Frame> frames_;

  void element_done() {
    if (!frames_.empty() && frames_.back().array) ++frames_.back().count;
  }

  [[nodiscard]] std::string path() const {
    std::string out;
    for (const auto& frame : frames_) {
      if (frame.array) {
        out += "[" + std::to_string(frame.count) + "]";
      } else {
        out += (out.empty() ? "" : ".") + frame.key;
      }
    }
    return out;
  }
};

}  // namespace

nlohmann::json parse_json_text(std::string_view text, const std::string& name) {
  try {
    return nlohmann::json::parse(text, DuplicateKeyCheck(name));
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

std::string json_text(const nlohmann::json& value, int indent) {
  return value.dump(indent, ' ', false, nlohmann::json::error_handler_t::replace);
}

std::string json_text(const nlohmann::ordered_json& value, int indent) {
  return value.dump(indent, ' ', false, nlohmann::ordered_json::error_handler_t::replace);
}

}  // namespace cnnperf
