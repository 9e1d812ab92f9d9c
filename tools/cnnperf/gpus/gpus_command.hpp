// SPDX-License-Identifier: Apache-2.0
// `cnnperf gpus [show NAME]`: list and inspect the GPU database.
#pragma once

#include <string>

namespace cnnperf {

/// Options of `cnnperf gpus` (all strings as typed; validated by run_gpus).
struct GpusOptions {
  std::string format = "table";  ///< table|json|csv
  std::string output;            ///< output file; "" or "-" = stdout
  std::string segment;           ///< filter: datacenter|desktop|workstation|jetson ("" = all)
  std::string arch;              ///< filter: kepler..blackwell ("" = all)
  std::string database;          ///< database file; "" = bundled models/gpus.json
  std::string show;              ///< `gpus show NAME`: a name, alias, family or spec file
};

/// Renders the listing (or one entry for `show`) in the requested format. Pure: no I/O
/// beyond loading the database / spec file. Throws InputError on bad options or names.
[[nodiscard]] std::string render_gpus(const GpusOptions& options);

/// Runs `cnnperf gpus`: render_gpus() written to options.output. Returns the exit code (0).
int run_gpus(const GpusOptions& options);

}  // namespace cnnperf
