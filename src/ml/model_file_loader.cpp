// SPDX-License-Identifier: Apache-2.0
// LearnedModel::load: a model file read with its XGBoost boosters parsed straight from the
// (memory-mapped) bytes, in parallel, instead of through a full JSON DOM.
#include <spdlog/spdlog.h>

#include <algorithm>
#include <atomic>
#include <exception>
#include <filesystem>
#include <memory>
#include <optional>
#include <string_view>
#include <thread>

#include "cnnperf/common/error.hpp"
#include "cnnperf/common/io.hpp"
#include "cnnperf/common/json_io.hpp"
#include "cnnperf/ml/e2e.hpp"
#include "cnnperf/ml/learned_model.hpp"
#include "json_cursor.hpp"
#include "regressor_internal.hpp"

#if __has_include(<sys/mman.h>) && __has_include(<fcntl.h>) && __has_include(<unistd.h>)
#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>
#define CNNPERF_HAVE_MMAP 1
#else
#define CNNPERF_HAVE_MMAP 0
#endif

namespace cnnperf {

namespace {

/// Byte range [begin, end) of families[family].regressor.model.tree_arrays (a string: the base64
/// tree arrays) or, in files of schema_version 1, .model.booster (XGBoost's JSON object).
struct BoosterSpan {
  std::size_t family = 0;  ///< index in the model's families (after any filtering)
  std::size_t begin = 0;
  std::size_t end = 0;
  std::size_t file_family = 0;  ///< index in the file's families array (for messages)
  bool gpu_blind = false;       ///< the family's gpu_blind_regressor's booster, not regressor's
  bool tree_arrays = false;     ///< model.tree_arrays, quotes included in the range

  [[nodiscard]] const char* key() const { return tree_arrays ? "tree_arrays" : "booster"; }
};

const char* regressor_key(bool gpu_blind) {
  return gpu_blind ? "gpu_blind_regressor" : "regressor";
}

/// Thrown by find_boosters when the layout is valid JSON but not the usual one (a repeated
/// key): the loader then takes the plain DOM path, whose duplicate-key rule is nlohmann's.
struct UnusualLayout {};

/// Walks the whole file without building values and returns where each XGBoost booster
/// object is. Throws InputError on invalid JSON.
std::vector<BoosterSpan> find_boosters(std::string_view text, const std::string& path) {
  ml_detail::JsonCursor c(text, path);
  std::vector<BoosterSpan> out;
  // Calls `on_key(key)` for each member of the object at the cursor; `on_key` reads or
  // skips the value. A repeated key among `watched` makes the layout unusual.
  auto members = [&c](std::initializer_list<std::string_view> watched, auto&& on_key) {
    c.begin_object();
    std::vector<std::string_view> seen;
    std::string_view key;
    while (c.next_member(key)) {
      for (const auto w : watched) {
        if (key == w) {
          if (std::find(seen.begin(), seen.end(), w) != seen.end()) throw UnusualLayout{};
          seen.push_back(w);
        }
      }
      on_key(key);
    }
  };
  members({"families"}, [&](std::string_view key) {
    if (key != "families" || c.peek() != '[') {
      c.skip_value();
      return;
    }
    c.begin_array();
    for (std::size_t i = 0; c.next_element(); ++i) {
      if (c.peek() != '{') {
        c.skip_value();
        continue;
      }
      // The boosters' lengths in bytes, when the writer recorded them ahead of them.
      std::size_t regressor_bytes = 0;
      std::size_t blind_bytes = 0;
      members({"booster_bytes", "regressor", "gpu_blind_regressor"}, [&](std::string_view k1) {
        if (k1 == "booster_bytes" && c.peek() == '{') {
          c.begin_object();
          std::string_view k;
          while (c.next_member(k)) {
            const bool of_blind = k == "gpu_blind_regressor";
            if ((k != "regressor" && !of_blind) || c.peek() == '"') {
              c.skip_value();
              continue;
            }
            const std::int64_t n = c.int_value();
            (of_blind ? blind_bytes : regressor_bytes) = n > 0 ? static_cast<std::size_t>(n) : 0;
          }
          return;
        }
        const bool blind = k1 == "gpu_blind_regressor";
        if ((k1 != "regressor" && !blind) || c.peek() != '{') {
          c.skip_value();
          return;
        }
        members({"model"}, [&](std::string_view k2) {
          if (k2 != "model" || c.peek() != '{') {
            c.skip_value();
            return;
          }
          bool found = false;
          members({"booster", "tree_arrays"}, [&](std::string_view k3) {
            if (k3 == "tree_arrays" && c.peek() == '"') {
              // Unchecked here: the base64 decoder reads every character of it.
              if (found) throw UnusualLayout{};  // both forms: from_json says which one counts
              found = true;
              const std::size_t begin = c.offset();
              (void)c.skip_string_unchecked();
              out.push_back({i, begin, c.offset(), i, blind, true});
            } else if (k3 == "booster" && c.peek() == '{') {
              if (found) throw UnusualLayout{};
              found = true;
              // Unchecked here: the XGBoost regressor reads this range to its last byte
              // with a validating cursor (the arrays it ignores get a character check).
              (void)c.peek();
              const std::size_t begin = c.offset();
              // With the recorded length, the booster's megabytes are not scanned at all; a
              // wrong one cannot pass unnoticed: the rest of the file, parsed by nlohmann
              // without the span, or the booster, read by a validating cursor, fails and
              // the file takes the plain path.
              const std::size_t bytes = blind ? blind_bytes : regressor_bytes;
              if (bytes == 0 || !c.skip_container_of_size(bytes)) {
                (void)c.skip_container_unchecked();
              }
              out.push_back({i, begin, c.offset(), i, blind, false});
            } else {
              c.skip_value();
            }
          });
        });
      });
    }
  });
  c.expect_end();
  return out;
}

/// The model file as a DOM in which each XGBoost booster is ml_detail::pending_booster_value()
/// (its range is in `spans`). nlohmann then parses only the small rest of the file; the
/// boosters (nearly all of a model file's bytes) are read once, by attach_boosters.
/// Returns nullopt when the file should take the plain path (invalid JSON, repeated keys).
std::optional<nlohmann::json> parse_without_boosters(std::string_view text, const std::string& path,
                                                     std::vector<BoosterSpan>& spans) {
  try {
    spans = find_boosters(text, path);
  } catch (const InputError&) {
    return std::nullopt;  // the plain parser reports the error with nlohmann's wording
  } catch (const UnusualLayout&) {
    return std::nullopt;
  }
  std::string rest;
  std::size_t cut = 0;
  for (const auto& s : spans) cut += s.end - s.begin;
  rest.reserve(text.size() - cut + 4 * spans.size());
  std::size_t prev = 0;
  for (const auto& s : spans) {
    rest.append(text.substr(prev, s.begin - prev));
    rest += "null";
    prev = s.end;
  }
  rest.append(text.substr(prev));
  nlohmann::json doc;
  try {
    doc = parse_json_text(rest, path);  // simdjson's pace over the training rows' fingerprint
  } catch (const InputError&) {
    return std::nullopt;  // the caller's full parse reports where the text is wrong
  }
  for (const auto& s : spans) {
    doc.at("families").at(s.family).at(regressor_key(s.gpu_blind)).at("model")[s.key()] =
        ml_detail::pending_booster_value();
  }
  return doc;
}

/// A whole file, read-only. Mapped where possible: a fresh heap copy of a large model file
/// costs a page fault per 4 kB, mapping the cached file one call. Compressed files, systems
/// without mmap and every error case go through read_text_file (and its messages).
class FileBytes {
 public:
  explicit FileBytes(const std::string& path) {
#if CNNPERF_HAVE_MMAP
    if (!path.ends_with(".gz")) {
      const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
      struct stat st {};
      if (fd >= 0 && ::fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && st.st_size > 0) {
        int flags = MAP_PRIVATE;
#ifdef MAP_POPULATE
        flags |= MAP_POPULATE;  // one call maps every page instead of a fault per page
#endif
        void* map = ::mmap(nullptr, static_cast<std::size_t>(st.st_size), PROT_READ, flags, fd, 0);
        if (map != MAP_FAILED) {
          map_ = map;
          size_ = static_cast<std::size_t>(st.st_size);
        }
      }
      if (fd >= 0) ::close(fd);
      if (map_ != nullptr) return;
    }
#endif
    text_ = read_text_file(path);
  }
  ~FileBytes() {
#if CNNPERF_HAVE_MMAP
    if (map_ != nullptr) ::munmap(map_, size_);
#endif
  }
  FileBytes(const FileBytes&) = delete;
  FileBytes& operator=(const FileBytes&) = delete;

  [[nodiscard]] std::string_view view() const {
    return map_ != nullptr ? std::string_view(static_cast<const char*>(map_), size_)
                           : std::string_view(text_);
  }

 private:
  void* map_ = nullptr;
  std::size_t size_ = 0;
  std::string text_;
};

/// Reads each booster's trees straight from the file's bytes into its regressor, the
/// families in parallel (they are independent and each is about a third of the work).
void attach_boosters(const LearnedModel& model, std::string_view text,
                     const std::vector<BoosterSpan>& spans, const std::string& path) {
  std::vector<std::exception_ptr> errors(spans.size());
  auto attach = [&](std::size_t k) {
    const BoosterSpan& s = spans[k];
    try {
      const FamilyModel& f = model.families().at(s.family);
      // from_json read a gpu_blind_regressor exactly when it is there.
      const auto& regressor = s.gpu_blind ? f.gpu_blind_regressor : f.regressor;
      // A string's contents lie between its quotes.
      const std::size_t quote = s.tree_arrays ? 1 : 0;
      (void)ml_detail::attach_booster_text(
          *regressor, text.substr(s.begin + quote, s.end - s.begin - 2 * quote),
          path + ": families[" + std::to_string(s.file_family) + "]." + regressor_key(s.gpu_blind) +
              ".model." + s.key(),
          s.begin + quote);
    } catch (...) {
      errors[k] = std::current_exception();
    }
  };
  const auto workers = std::min<std::size_t>(ml_detail::resolve_threads(0), spans.size());
  std::atomic<std::size_t> next{0};
  auto work = [&] {
    for (std::size_t k = next++; k < spans.size(); k = next++) attach(k);
  };
  std::vector<std::thread> threads;
  for (std::size_t t = 1; t < workers; ++t) threads.emplace_back(work);
  work();
  for (auto& t : threads) t.join();
  for (const auto& e : errors) {
    if (e) std::rethrow_exception(e);
  }
}

}  // namespace

std::unique_ptr<LearnedModel> LearnedModel::load(const std::string& named_path,
                                                 bool reference_source_only,
                                                 const GpuSpec* only_gpu) {
  const std::string path = user_file_or_resource(named_path);
  const FileBytes file(path);
  const std::string_view text = file.view();
  std::vector<BoosterSpan> spans;
  std::optional<nlohmann::json> doc = parse_without_boosters(text, path, spans);
  if (!doc) {
    spans.clear();
    doc = parse_json_text(text, path);
  }
  auto model = from_json(*doc, path);
  if (reference_source_only) {
    // Per family, the model rows without a source go to; the others are dropped before
    // their boosters are read, and the spans renumbered to the kept families.
    std::vector<const FamilyModel*> used;
    for (const auto& f : model->families_) {
      std::vector<const FamilyModel*> same;
      for (const auto& g : model->families_) {
        if (g.family == f.family) same.push_back(&g);
      }
      if (model_for_source(same, kReferenceSource) == &f) used.push_back(&f);
    }
    constexpr std::size_t kDropped = std::numeric_limits<std::size_t>::max();
    std::vector<std::size_t> new_index(model->families_.size(), kDropped);
    std::vector<FamilyModel> kept;
    for (std::size_t i = 0; i < model->families_.size(); ++i) {
      if (std::find(used.begin(), used.end(), &model->families_[i]) == used.end()) continue;
      new_index[i] = kept.size();
      kept.push_back(std::move(model->families_[i]));
    }
    model->families_ = std::move(kept);
    std::vector<BoosterSpan> kept_spans;
    for (auto s : spans) {
      if (new_index.at(s.family) == kDropped) continue;
      s.family = new_index[s.family];
      kept_spans.push_back(s);
    }
    spans = std::move(kept_spans);
    if (only_gpu != nullptr) {
      // Rows without a source on `only_gpu` take one of each family's two regressors; the
      // other's booster is not read (a network's prediction: 5 boosters would be read, 3 are used).
      for (auto& f : model->families_) {
        if (f.gpu_blind_regressor == nullptr) continue;
        const bool blind = gpu_blind_for(f, *only_gpu, kReferenceSource);
        (blind ? f.regressor : f.gpu_blind_regressor).reset();
      }
      std::erase_if(spans, [&](const BoosterSpan& s) {
        const FamilyModel& f = model->families_.at(s.family);
        return (s.gpu_blind ? f.gpu_blind_regressor : f.regressor) == nullptr;
      });
      model->only_gpu_ = only_gpu->name;
    }
  }
  attach_boosters(*model, text, spans, path);
  model->set_name(std::filesystem::path(path).filename().string());
  model->set_kernel_params(bundled_analytical_params());
  return model;
}

}  // namespace cnnperf
