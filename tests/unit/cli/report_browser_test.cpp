// SPDX-License-Identifier: Apache-2.0
// The report's pages in a real browser: Debian's headless chromium lays out a network
// prediction's and a plan's page at two widths, and nothing may be wider than its box (the page
// itself, a table's scroll box, a chart). The page has no script; the test's own wrapper page
// loads it in iframes and measures it. Skipped, saying so, where chromium is not installed.
#include <gtest/gtest.h>

#include <array>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "cli_runner.hpp"

namespace cnnperf {
namespace {

using cli_test::run_cnnperf;
using cli_test::RunResult;
using cli_test::temp_dir;

// The output of a shell command (stdout only; empty when it could not run).
std::string shell_output(const std::string& command) {
  std::string out;
  FILE* pipe = ::popen(command.c_str(), "r");
  if (pipe == nullptr) return out;
  std::array<char, 4096> buffer{};
  std::size_t n = 0;
  while ((n = std::fread(buffer.data(), 1, buffer.size(), pipe)) > 0) out.append(buffer.data(), n);
  ::pclose(pipe);
  return out;
}

std::string find_chromium() {
  for (const char* name : {"chromium", "chromium-browser"}) {
    const std::string path = shell_output(std::string("command -v ") + name + " 2>/dev/null");
    if (!path.empty()) return path.substr(0, path.find('\n'));
  }
  return {};
}

// A wrapper page with one iframe per (page, width); once all have loaded it writes, per frame,
// the widths that overflow: "OVERFLOW page@width what content>box" lines, and "CHECKED n".
std::string wrapper_page(const std::vector<std::string>& pages, const std::vector<int>& widths) {
  std::string frames;
  for (const auto& page : pages) {
    for (const int w : widths) {
      frames += "<iframe src=\"" + page + "\" data-name=\"" + page + "@" + std::to_string(w) +
                "\" style=\"border:0;display:block;width:" + std::to_string(w) +
                "px;height:600px\"></iframe>\n";
    }
  }
  return "<!DOCTYPE html><html><body style=\"margin:0\">\n" + frames + R"(<pre id="result"></pre>
<script>
var frames = document.querySelectorAll('iframe'), loaded = 0;
function measure() {
  var lines = [];
  frames.forEach(function (f) {
    var doc = f.contentDocument, root = doc.documentElement, name = f.dataset.name;
    if (root.scrollWidth > root.clientWidth) {
      lines.push('OVERFLOW ' + name + ' page ' + root.scrollWidth + '>' + root.clientWidth);
    }
    doc.querySelectorAll('div.scroll, svg, table, pre').forEach(function (e, i) {
      var right = Math.round(e.getBoundingClientRect().right);
      if (e.scrollWidth > e.clientWidth + 1 || right > root.clientWidth + 1) {
        lines.push('OVERFLOW ' + name + ' ' + e.tagName.toLowerCase() + '#' + i + ' ' +
                   e.scrollWidth + '>' + e.clientWidth + ' right ' + right);
      }
    });
  });
  lines.push('CHECKED ' + frames.length);
  document.getElementById('result').textContent = lines.join('\n');
}
frames.forEach(function (f) { f.onload = function () { if (++loaded === frames.length) measure(); }; });
</script></body></html>
)";
}

// What the wrapper's script wrote (the script's own text names the same words).
std::string result_of(const std::string& dom) {
  const std::string open = "<pre id=\"result\">";
  const auto begin = dom.find(open);
  if (begin == std::string::npos) return {};
  const auto end = dom.find("</pre>", begin);
  return dom.substr(begin + open.size(),
                    end == std::string::npos ? end : end - begin - open.size());
}

// 800 px: headless chromium's default window, where the plan's ranked table was wider than the
// page; 1100 px: a common laptop window.
TEST(ReportBrowser, NetworkPredictionAndPlanPagesFitTheirWidth) {
  const std::string chromium = find_chromium();
  if (chromium.empty()) {
    GTEST_SKIP() << "chromium is not installed (apt-get install chromium): the report's layout "
                    "is not checked in a browser";
  }
  const auto dir = temp_dir() / "browser";
  std::filesystem::create_directories(dir);
  const std::string d = "\"" + dir.string() + "/";
  for (const std::string& args :
       {"predict --net resnet50 --gpu a100 --format json -o " + d + "r50.json\"",
        "plan --profile realtime --gpus t4,jetson-agx-orin --batch 1,8 --power-limits none,40 "
        "--format json -o " +
            d + "plan.json\"",
        "report " + d + "r50.json\" -o " + d + "r50.html\"",
        "report " + d + "plan.json\" -o " + d + "plan.html\""}) {
    const RunResult r = run_cnnperf(args);
    ASSERT_EQ(r.exit_code, 0) << args << "\n" << r.err;
  }
  std::ofstream(dir / "wrapper.html") << wrapper_page({"r50.html", "plan.html"}, {800, 1100});
  // file:// pages are separate origins unless allowed: the wrapper reads its frames' layout.
  const std::string dom =
      shell_output("timeout 120 \"" + chromium +
                   "\" --headless --no-sandbox --disable-gpu --allow-file-access-from-files "
                   "--virtual-time-budget=10000 --dump-dom \"file://" +
                   (dir / "wrapper.html").string() + "\" 2>/dev/null");
  ASSERT_NE(result_of(dom).find("CHECKED 4"), std::string::npos)
      << "the wrapper did not measure its 4 frames; chromium printed:\n"
      << dom.substr(0, 2000);
  EXPECT_EQ(result_of(dom).find("OVERFLOW"), std::string::npos) << result_of(dom);
}

TEST(ReportBrowser, TheCheckSeesAPageWiderThanItsWidth) {
  const std::string chromium = find_chromium();
  if (chromium.empty()) {
    GTEST_SKIP() << "chromium is not installed (apt-get install chromium)";
  }
  const auto dir = temp_dir() / "browser_wide";
  std::filesystem::create_directories(dir);
  std::ofstream(dir / "wide.html") << "<!DOCTYPE html><html><body><div style=\"width:1500px\">"
                                      "wide</div></body></html>";
  std::ofstream(dir / "wrapper.html") << wrapper_page({"wide.html"}, {800});
  const std::string dom =
      shell_output("timeout 120 \"" + chromium +
                   "\" --headless --no-sandbox --disable-gpu --allow-file-access-from-files "
                   "--virtual-time-budget=10000 --dump-dom \"file://" +
                   (dir / "wrapper.html").string() + "\" 2>/dev/null");
  ASSERT_NE(result_of(dom).find("CHECKED 1"), std::string::npos) << dom.substr(0, 2000);
  EXPECT_NE(result_of(dom).find("OVERFLOW wide.html@800 page"), std::string::npos) << dom;
}

}  // namespace
}  // namespace cnnperf
