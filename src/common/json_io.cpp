// SPDX-License-Identifier: Apache-2.0
#include "cnnperf/common/json_io.hpp"

#include <algorithm>
#include <cstdint>
#include <optional>
#include <string>
#include <unordered_set>
#include <utility>
#include <vector>

#include <simdjson.h>

#include "cnnperf/common/error.hpp"
#include "cnnperf/common/io.hpp"

namespace cnnperf {
namespace {

std::string repeated_key_message(const std::string& name, const std::string& path) {
  return name + ": " + path + ": key given twice in one object (JSON readers keep only one of " +
         "them)";
}

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
          throw InputError(repeated_key_message(name_, path()));
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

// The fast path: simdjson (a few hundred MB/s where nlohmann's lexer does tens) validates
// the text and builds the same nlohmann document the slow path would, keeping nlohmann's
// number kinds (a non-negative integer is unsigned). Anything simdjson refuses (bad syntax or
// UTF-8, nesting past the bound, an integer past 64 bits) goes to the slow path, which
// either reads it the way it always has or says why not in its own words.
struct RepeatedKey {
  std::string path;  ///< from the object holding the key down to the key, as DuplicateKeyCheck
};

// `child` is a path below an element: "[i]..." joins without a dot, a key with one, an empty
// one (the element itself) leaves `parent` as it is.
std::string join_path(std::string parent, const std::string& child) {
  if (!child.empty() && child.front() != '[') parent += '.';
  return parent + child;
}

// Members a reader leaves out: those named `key` of the objects `depth` levels below the root.
struct SkippedMembers {
  std::string_view key;
  int depth = -1;
};

nlohmann::json to_nlohmann(simdjson::dom::element element, const SkippedMembers& skip = {},
                           int depth = 0) {
  using Type = simdjson::dom::element_type;
  switch (element.type()) {
    case Type::ARRAY: {
      nlohmann::json out = nlohmann::json::array();
      auto& items = out.get_ref<nlohmann::json::array_t&>();
      std::size_t index = 0;
      // The array (a view into the parser's tape) is copied out of its result: iterating the
      // temporary result's member would read a dangling object.
      const simdjson::dom::array array = element.get_array().value_unsafe();
      for (const simdjson::dom::element item : array) {
        try {
          items.push_back(to_nlohmann(item, skip, depth + 1));
        } catch (RepeatedKey& repeated) {
          repeated.path = join_path("[" + std::to_string(index) + "]", repeated.path);
          throw;
        }
        ++index;
      }
      return out;
    }
    case Type::OBJECT: {
      nlohmann::json out = nlohmann::json::object();
      auto& fields = out.get_ref<nlohmann::json::object_t&>();
      const simdjson::dom::object object = element.get_object().value_unsafe();
      bool skipped = false;
      for (const simdjson::dom::key_value_pair field : object) {
        std::string key(field.key);
        try {
          if (depth == skip.depth && field.key == skip.key) {
            if (skipped) throw RepeatedKey{""};
            skipped = true;
            continue;
          }
          if (!fields.emplace(key, to_nlohmann(field.value, skip, depth + 1)).second) {
            throw RepeatedKey{""};
          }
        } catch (RepeatedKey& repeated) {
          repeated.path = join_path(key, repeated.path);
          throw;
        }
      }
      return out;
    }
    case Type::INT64: {
      const std::int64_t value = element.get_int64().value_unsafe();
      if (value >= 0) return static_cast<std::uint64_t>(value);
      return value;
    }
    case Type::UINT64: return element.get_uint64().value_unsafe();
    case Type::DOUBLE: return element.get_double().value_unsafe();
    case Type::STRING: return std::string(element.get_string().value_unsafe());
    case Type::BOOL: return element.get_bool().value_unsafe();
    case Type::NULL_VALUE: return nullptr;
  }
  return nullptr;
}

// An integer written "-0": nlohmann reads it as a signed 0, simdjson's tape keeps no sign.
// Where the text could hold one (a "-0" after what may precede a value and before what may
// follow one), the slow path reads it; "-0" inside a string ("WP-08608") is no such place.
bool may_have_negative_integer_zero(std::string_view text) {
  const std::string_view before = " \t\r\n:,[";
  const std::string_view after = " \t\r\n,]}";
  for (auto pos = text.find("-0"); pos != std::string_view::npos; pos = text.find("-0", pos + 1)) {
    const bool value_start = pos == 0 || before.find(text[pos - 1]) != std::string_view::npos;
    const bool value_end =
        pos + 2 == text.size() || after.find(text[pos + 2]) != std::string_view::npos;
    if (value_start && value_end) return true;
  }
  return false;
}

// simdjson's tape of `text` in `parser`, or nullopt where the slow path decides.
std::optional<simdjson::dom::element> parse_tape(simdjson::dom::parser& parser,
                                                 std::string_view text) {
  if (may_have_negative_integer_zero(text)) return std::nullopt;
  if (parser.allocate(text.size(), kMaxJsonDepth) != simdjson::SUCCESS) return std::nullopt;
  simdjson::dom::element root;
  if (parser.parse(text.data(), text.size()).get(root) != simdjson::SUCCESS) return std::nullopt;
  return root;
}

// nullopt: the slow path decides.
std::optional<nlohmann::json> parse_fast(std::string_view text, const std::string& name) {
  simdjson::dom::parser parser;
  const auto root = parse_tape(parser, text);
  if (!root) return std::nullopt;
  try {
    return to_nlohmann(*root);
  } catch (const RepeatedKey& repeated) {
    throw InputError(repeated_key_message(name, repeated.path));
  }
}

// "/gpus/12/name" as the readers' messages write places: "gpus[12].name" (a token of digits
// taken as an array index).
std::string pointer_as_path(const std::string& pointer) {
  std::string path;
  std::size_t pos = 0;
  while (pos < pointer.size()) {
    const std::size_t next = std::min(pointer.find('/', pos + 1), pointer.size());
    const std::string token = pointer.substr(pos + 1, next - pos - 1);
    const bool index = !token.empty() && token.find_first_not_of("0123456789") == std::string::npos;
    path = index ? path + "[" + token + "]" : path.empty() ? token : join_path(path, token);
    pos = next;
  }
  return path;
}

// Erases what SkippedMembers names from a document the slow path built whole.
void erase_members(nlohmann::json& value, const SkippedMembers& skip, int depth) {
  if (depth == skip.depth) {
    if (value.is_object()) value.erase(std::string(skip.key));
    return;
  }
  if (value.is_object() || value.is_array()) {
    for (auto& child : value) erase_members(child, skip, depth + 1);
  }
}

}  // namespace

nlohmann::json parse_json_text(std::string_view text, const std::string& name) {
  if (auto fast = parse_fast(text, name)) return std::move(*fast);
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

struct ParsedJsonText::Impl {
  // Held through impl_ only, never moved: simdjson's tape points into its parser.
  Impl(std::string text_in, std::string name_in)
      : text(std::move(text_in)), name(std::move(name_in)) {}
  Impl(const Impl&) = delete;
  Impl& operator=(const Impl&) = delete;
  Impl(Impl&&) = delete;
  Impl& operator=(Impl&&) = delete;
  ~Impl() = default;
  std::string text;
  std::string name;
  // simdjson's tape when it read the text; otherwise (what parse_fast leaves to the slow
  // path) the whole nlohmann document.
  simdjson::dom::parser parser;
  std::optional<simdjson::dom::element> root;
  nlohmann::json slow;
};

ParsedJsonText::ParsedJsonText(std::string text, std::string name)
    : impl_(std::make_unique<Impl>(std::move(text), std::move(name))) {
  impl_->root = parse_tape(impl_->parser, impl_->text);
  if (!impl_->root) impl_->slow = parse_json_text(impl_->text, impl_->name);
}

ParsedJsonText::~ParsedJsonText() = default;
ParsedJsonText::ParsedJsonText(ParsedJsonText&&) noexcept = default;
ParsedJsonText& ParsedJsonText::operator=(ParsedJsonText&&) noexcept = default;

const std::string& ParsedJsonText::name() const {
  return impl_->name;
}

std::optional<nlohmann::json> ParsedJsonText::find(const std::string& pointer,
                                                   std::string_view skip_key,
                                                   int skip_depth) const {
  const SkippedMembers skip{skip_key, skip_depth};
  if (impl_->root) {
    simdjson::dom::element value;
    if (impl_->root->at_pointer(pointer).get(value) != simdjson::SUCCESS) return std::nullopt;
    try {
      return to_nlohmann(value, skip);
    } catch (RepeatedKey& repeated) {
      // The path names the key from the value asked for; the pointer places that value.
      const std::string place = pointer_as_path(pointer);
      throw InputError(repeated_key_message(
          impl_->name, place.empty() ? repeated.path : join_path(place, repeated.path)));
    }
  }
  nlohmann::json value;
  try {
    value = impl_->slow.at(nlohmann::json::json_pointer(pointer));
  } catch (const nlohmann::json::exception&) {  // a malformed pointer or a missing value
    return std::nullopt;
  }
  erase_members(value, skip, 0);
  return value;
}

std::optional<std::size_t> ParsedJsonText::array_size(const std::string& pointer) const {
  if (impl_->root) {
    simdjson::dom::array array;
    if (impl_->root->at_pointer(pointer).get(array) != simdjson::SUCCESS) return std::nullopt;
    return array.size();
  }
  try {
    const auto& value = impl_->slow.at(nlohmann::json::json_pointer(pointer));
    if (!value.is_array()) return std::nullopt;
    return value.size();
  } catch (const nlohmann::json::exception&) {
    return std::nullopt;
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
