// SPDX-License-Identifier: Apache-2.0
// docs/cli.md holds every subcommand's --help; it must match what the binary prints
// (regenerate with tools/gen_cli_doc.sh after changing an option or an example).
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "cli_runner.hpp"
#include "cnnperf/common/io.hpp"

namespace cnnperf {
namespace {

struct Section {
  std::string command;  // words after "cnnperf", may be empty
  std::string help;     // the fenced block
};

std::vector<Section> sections_of(const std::string& doc) {
  std::vector<Section> out;
  const std::string heading = "\n## cnnperf";
  for (std::size_t at = doc.find(heading); at != std::string::npos;
       at = doc.find(heading, at + 1)) {
    const std::size_t line_end = doc.find('\n', at + 1);
    Section s;
    s.command = doc.substr(at + heading.size(), line_end - at - heading.size());
    if (!s.command.empty() && s.command.front() == ' ') s.command.erase(0, 1);
    const std::size_t open = doc.find("```text\n", line_end);
    const std::size_t close = doc.find("```\n", open + 8);
    s.help = doc.substr(open + 8, close - open - 8);
    out.push_back(std::move(s));
  }
  return out;
}

TEST(CliDoc, EverySubcommandHelpMatchesTheBinary) {
  const std::string doc =
      read_text_file(std::string(CNNPERF_SOURCE_DIR_FOR_TESTS) + "/docs/cli.md");
  const auto sections = sections_of(doc);
  ASSERT_GE(sections.size(), 13u);
  for (const char* must : {"predict", "profile", "ptx", "train", "validate", "plan", "report"}) {
    bool found = false;
    for (const auto& s : sections) found = found || s.command == must;
    EXPECT_TRUE(found) << must << " missing from docs/cli.md";
  }
  for (const auto& s : sections) {
    const cli_test::RunResult r = cli_test::run_cnnperf(s.command + " --help");
    ASSERT_EQ(r.exit_code, 0) << s.command;
    EXPECT_EQ(r.out, s.help) << "docs/cli.md is stale for 'cnnperf " << s.command
                             << "': run tools/gen_cli_doc.sh";
  }
}

// Examples a user copies must not replace the bundled models (they are the tool's inputs) nor
// fail outside the checkout: README.md and every --help (docs/cli.md is the help, above).
TEST(CliDoc, NoExampleWritesIntoTheBundledModels) {
  for (const char* page : {"/README.md", "/docs/cli.md"}) {
    const std::string text = read_text_file(std::string(CNNPERF_SOURCE_DIR_FOR_TESTS) + page);
    for (const char* write : {"--out models/", "-o models/", "--output models/"}) {
      EXPECT_EQ(text.find(write), std::string::npos) << page << " has an example with " << write;
    }
  }
}

}  // namespace
}  // namespace cnnperf
