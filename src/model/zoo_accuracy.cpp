// SPDX-License-Identifier: Apache-2.0
// Loader of models/zoo_accuracy.json (published top-1 accuracy per zoo network).
#include "cnnperf/model/zoo_accuracy.hpp"

#include <algorithm>
#include <cmath>
#include <set>

#include <nlohmann/json.hpp>

#include "cnnperf/common/error.hpp"
#include "cnnperf/common/io.hpp"
#include "cnnperf/common/json_io.hpp"

namespace cnnperf {

namespace {

std::string normalize_network_name(std::string_view name) {
  std::string n = to_lower(name);
  std::replace(n.begin(), n.end(), '-', '_');
  return n;
}

std::string required_string(const nlohmann::json& object, const char* key,
                            const std::string& where) {
  const auto it = object.find(key);
  if (it == object.end() || !it->is_string() || it->get<std::string>().empty()) {
    throw InputError(where + "." + key + ": expected a non-empty string");
  }
  return it->get<std::string>();
}

}  // namespace

AccuracyTable AccuracyTable::from_json(const nlohmann::json& doc, const std::string& where) {
  if (!doc.is_object()) {
    throw InputError(where + ": expected a JSON object");
  }
  const auto version = doc.find("schema_version");
  if (version == doc.end() || !version->is_number_integer() ||
      version->get<int>() != kZooAccuracySchemaVersion) {
    throw InputError(where + ".schema_version: expected " +
                     std::to_string(kZooAccuracySchemaVersion));
  }
  const auto networks = doc.find("networks");
  if (networks == doc.end() || !networks->is_array()) {
    throw InputError(where + ".networks: expected an array");
  }
  AccuracyTable table;
  std::set<std::string> seen;
  for (std::size_t i = 0; i < networks->size(); ++i) {
    const nlohmann::json& entry = (*networks)[i];
    const std::string at = where + ".networks[" + std::to_string(i) + "]";
    if (!entry.is_object()) {
      throw InputError(at + ": expected an object");
    }
    PublishedAccuracy acc;
    acc.network = normalize_network_name(required_string(entry, "name", at));
    const auto top1 = entry.find("top1_percent");
    if (top1 == entry.end() || !top1->is_number() || !std::isfinite(top1->get<double>()) ||
        top1->get<double>() <= 0 || top1->get<double>() > 100) {
      throw InputError(at + ".top1_percent: expected a number in (0, 100]");
    }
    acc.top1_percent = top1->get<double>();
    acc.dataset = required_string(entry, "dataset", at);
    acc.weights = required_string(entry, "weights", at);
    acc.source = required_string(entry, "source", at);
    acc.url = required_string(entry, "url", at);
    if (!seen.insert(acc.network).second) {
      throw InputError(at + ".name: '" + acc.network + "' listed twice");
    }
    table.entries_.push_back(std::move(acc));
  }
  return table;
}

AccuracyTable AccuracyTable::load(const std::string& path) {
  AccuracyTable table = from_json(read_json_file(path), path);
  table.source_path_ = path;
  return table;
}

const AccuracyTable& AccuracyTable::bundled() {
  static const AccuracyTable table = load(find_resource("models/zoo_accuracy.json").string());
  return table;
}

const PublishedAccuracy* AccuracyTable::find(std::string_view network) const {
  const std::string key = normalize_network_name(network);
  for (const auto& entry : entries_) {
    if (entry.network == key) {
      return &entry;
    }
  }
  return nullptr;
}

}  // namespace cnnperf
