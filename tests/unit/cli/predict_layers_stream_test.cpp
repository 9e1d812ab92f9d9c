// SPDX-License-Identifier: Apache-2.0
// `predict --layers` reads, predicts and writes a chunk of rows at a time: memory stays flat
// in the row count, a row is predicted the same wherever a chunk ends, and an error or a
// signal part-way leaves no partial file. Every layer CSV here is a synthetic fixture (shapes
// only, no measurement).
#include <fcntl.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <functional>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "cli_runner.hpp"

namespace cnnperf::cli_test {
namespace {

namespace fs = std::filesystem;

constexpr const char* kHeader =
    "op,batch,c_in,h_in,w_in,c_out,kernel_h,kernel_w,stride_h,stride_w,pad_h,pad_w";

// Row i of a synthetic layer CSV: convolutions, linear and pointwise layers of varied sizes.
std::string synthetic_row(std::size_t i) {
  const std::string batch = std::to_string(1 + i % 64);
  const std::string channels = std::to_string(16 * (1 + i % 32));
  const std::string size = std::to_string(7 + i % 50);
  switch (i % 3) {
    case 0:
      return "conv2d," + batch + "," + channels + "," + size + "," + size + "," +
             std::to_string(32 * (1 + i % 16)) + ",3,3,1,1,1,1";
    case 1: return "linear," + batch + "," + channels + ",1,1,1000,1,1,1,1,0,0";
    default: return "relu," + batch + "," + channels + "," + size + "," + size + ",,,,,,,";
  }
}

fs::path write_synthetic(const std::string& name, std::size_t rows) {
  const fs::path path = temp_dir() / name;
  std::ofstream out(path);
  out << kHeader << "\n";
  for (std::size_t i = 0; i < rows; ++i) out << synthetic_row(i) << "\n";
  return path;
}

std::string read_file(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

struct Child {
  int exit_code = -1;  // -1: ended by a signal
  int signal = 0;
  long max_rss_kb = 0;
  std::string err;
};

// The peak resident memory (kB) of process `pid` once it runs the cnnperf image, from
// /proc/PID/status's VmHWM; 0 before its exec and after its exit.
long peak_rss_after_exec_kb(pid_t pid) {
  std::error_code ec;
  const auto exe = fs::read_symlink("/proc/" + std::to_string(pid) + "/exe", ec);
  if (ec || exe != fs::canonical(CNNPERF_BINARY)) return 0;
  std::ifstream status("/proc/" + std::to_string(pid) + "/status");
  for (std::string line; std::getline(status, line);) {
    if (line.rfind("VmHWM:", 0) == 0) return std::stol(line.substr(6));
  }
  return 0;
}

// Runs `cnnperf ARGS` (no shell) with stdout to /dev/null. Its peak memory is the exec'd image's
// own VmHWM, sampled every 5 ms until it exits: wait4's ru_maxrss would also count the forked
// copy of this test process (Linux keeps the larger at exec), which is large after other tests.
// `while_running` is called with its pid first.
Child run_child(const std::vector<std::string>& args,
                const std::function<void(pid_t)>& while_running = {}) {
  const fs::path err_file = temp_dir() / "child_stderr.txt";
  std::vector<std::string> argv_text{CNNPERF_BINARY};
  argv_text.insert(argv_text.end(), args.begin(), args.end());
  std::vector<char*> argv;
  for (auto& arg : argv_text) argv.push_back(arg.data());
  argv.push_back(nullptr);
  const pid_t pid = ::fork();
  if (pid == 0) {
    const int out = ::open("/dev/null", O_WRONLY);
    const int err = ::open(err_file.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    ::dup2(out, STDOUT_FILENO);
    ::dup2(err, STDERR_FILENO);
    ::execv(argv[0], argv.data());
    ::_exit(127);
  }
  Child child;
  if (pid < 0) return child;
  if (while_running) while_running(pid);
  int status = 0;
  while (::waitpid(pid, &status, WNOHANG) == 0) {
    child.max_rss_kb = std::max(child.max_rss_kb, peak_rss_after_exec_kb(pid));
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  child.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  child.signal = WIFSIGNALED(status) ? WTERMSIG(status) : 0;
  child.err = read_file(err_file);
  return child;
}

std::size_t entries_in(const fs::path& dir) {
  std::size_t n = 0;
  for ([[maybe_unused]] const auto& entry : fs::directory_iterator(dir)) ++n;
  return n;
}

#if defined(__SANITIZE_ADDRESS__)
#define CNNPERF_TEST_UNDER_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define CNNPERF_TEST_UNDER_ASAN 1
#endif
#endif

// Holding the whole file took 258 MB for these 200,000 rows (1.98 GB for 1,000,000); read a
// chunk at a time, the process stays near its start-up size (about 26 MB) whatever the count.
TEST(PredictLayersStream, PeakMemoryStaysFlatInTheRowCount) {
#ifdef CNNPERF_TEST_UNDER_ASAN
  GTEST_SKIP() << "under AddressSanitizer a process's resident size holds its shadow memory and "
                  "the quarantine of freed blocks (256 MB by default): no measure of its own peak";
#endif
  constexpr std::size_t kRows = 200000;
  constexpr long kBoundKb = 100 * 1024;
  const fs::path csv = write_synthetic("rows200k.csv", kRows);
  const fs::path out = temp_dir() / "rows200k_out.csv";
  const Child child =
      run_child({"predict", "--layers", csv.string(), "--gpu", "v100", "-o", out.string()});
  ASSERT_EQ(child.exit_code, 0) << child.err;
  EXPECT_GT(child.max_rss_kb, 1024) << "no sample of the running binary's peak memory";
  EXPECT_LT(child.max_rss_kb, kBoundKb) << "peak memory of " << kRows << " rows";
  std::ifstream written(out);
  std::size_t lines = 0;
  for (std::string line; std::getline(written, line);) ++lines;
  EXPECT_EQ(lines, kRows + 1);
  fs::remove(out);
}

// 9,000 rows span three chunks; each output row is the one the row gets alone, each on the GPU
// its column names, and the JSON document is whole.
TEST(PredictLayersStream, ARowIsPredictedAsAloneWhereverAChunkEnds) {
  constexpr std::size_t kRepeats = 3000;
  const std::vector<std::string> rows{"conv2d,8,64,56,56,64,3,3,1,1,1,1,v100",
                                      "linear,32,1024,1,1,4096,1,1,1,1,0,0,t4",
                                      "conv2d,1,3,224,224,64,7,7,2,2,3,3,a100"};
  std::string few = std::string(kHeader) + ",gpu\n";
  for (const auto& row : rows) few += row + "\n";
  std::string many = std::string(kHeader) + ",gpu\n";
  for (std::size_t i = 0; i < kRepeats; ++i) many += rows[i % rows.size()] + "\n";
  const fs::path few_csv = temp_dir() / "few.csv";
  const fs::path many_csv = temp_dir() / "many.csv";
  std::ofstream(few_csv) << few;
  std::ofstream(many_csv) << many;

  RunResult one = run_cnnperf("predict --layers \"" + few_csv.string() + "\"");
  RunResult all = run_cnnperf("predict --layers \"" + many_csv.string() + "\"");
  ASSERT_EQ(one.exit_code, 0) << one.err;
  ASSERT_EQ(all.exit_code, 0) << all.err;
  std::vector<std::string> one_lines;
  std::istringstream one_text(one.out);
  for (std::string line; std::getline(one_text, line);) one_lines.push_back(line);
  ASSERT_EQ(one_lines.size(), rows.size() + 1);
  std::istringstream all_text(all.out);
  std::string line;
  std::size_t i = 0;
  for (; std::getline(all_text, line); ++i) {
    const std::string& expected = i == 0 ? one_lines[0] : one_lines[1 + (i - 1) % rows.size()];
    ASSERT_EQ(line, expected) << "output line " << i + 1;
  }
  EXPECT_EQ(i, kRepeats + 1);

  one = run_cnnperf("predict --layers \"" + few_csv.string() + "\" --format json");
  all = run_cnnperf("predict --layers \"" + many_csv.string() + "\" --format json");
  ASSERT_EQ(all.exit_code, 0) << all.err;
  const auto few_doc = nlohmann::json::parse(one.out);
  const auto many_doc = nlohmann::json::parse(all.out);
  ASSERT_EQ(many_doc.at("rows").size(), kRepeats);
  EXPECT_EQ(many_doc.at("gpus"), few_doc.at("gpus"));
  EXPECT_EQ(many_doc.at("gpus").size(), 3U);
  for (std::size_t r = 0; r < kRepeats; ++r) {
    ASSERT_EQ(many_doc["rows"][r], few_doc["rows"][r % rows.size()]) << "row " << r;
  }
  // An empty file is an empty array, not a broken document.
  const fs::path empty_csv = temp_dir() / "no_rows.csv";
  std::ofstream(empty_csv) << kHeader << "\n";
  const RunResult none =
      run_cnnperf("predict --layers \"" + empty_csv.string() + "\" --gpu v100 --format json");
  ASSERT_EQ(none.exit_code, 0) << none.err;
  EXPECT_TRUE(nlohmann::json::parse(none.out).at("rows").empty());

  // A table holds its rows to align them: up to 10,000.
  const RunResult table =
      run_cnnperf("predict --layers \"" + many_csv.string() + "\" --format table");
  ASSERT_EQ(table.exit_code, 0) << table.err;
  EXPECT_EQ(count_lines(table.out), static_cast<int>(kRepeats) + 2);  // header, rule, rows
}

TEST(PredictLayersStream, ATableOfMoreRowsThanItHoldsIsBadInput) {
  const fs::path csv = write_synthetic("rows10001.csv", 10001);
  const fs::path dir = temp_dir() / "table_out";
  fs::create_directories(dir);
  const RunResult r =
      run_cnnperf("predict --layers \"" + csv.string() + "\" --gpu v100 --format table -o \"" +
                  (dir / "t.txt").string() + "\"");
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_NE(r.err.find("rows10001.csv:10002: more than 10000 rows for --format table"),
            std::string::npos)
      << r.err;
  EXPECT_EQ(count_lines(r.err), 1) << r.err;
  EXPECT_EQ(entries_in(dir), 0U) << "a file was left";
}

// Bad input after the first chunks: exit 2 naming file, line and field, and no file (nor a
// temporary one) where the output was to go.
TEST(PredictLayersStream, AnErrorPartWayLeavesNoFile) {
  const fs::path csv = temp_dir() / "bad_late.csv";
  {
    std::ofstream out(csv);
    out << kHeader << "\n";
    for (std::size_t i = 0; i < 20000; ++i) {
      out << (i == 15000 ? "conv2d,8,sixty-four,56,56,64,3,3,1,1,1,1" : synthetic_row(i)) << "\n";
    }
  }
  const fs::path dir = temp_dir() / "bad_out";
  fs::create_directories(dir);
  for (const char* format : {"csv", "json"}) {
    const RunResult r =
        run_cnnperf("predict --layers \"" + csv.string() + "\" --gpu v100 --format " + format +
                    " -o \"" + (dir / "out").string() + "\"");
    EXPECT_EQ(r.exit_code, 2) << r.err;
    EXPECT_NE(r.err.find("bad_late.csv:15002: field 'c_in'"), std::string::npos) << r.err;
    EXPECT_EQ(entries_in(dir), 0U) << format << ": a file was left";
  }
}

// Stopped part-way (SIGTERM, as a CI job's timeout stops it), no temporary file is left.
TEST(PredictLayersStream, ASignalPartWayLeavesNoFile) {
  const fs::path csv = write_synthetic("rows_signal.csv", 200000);
  const fs::path dir = temp_dir() / "signal_out";
  fs::create_directories(dir);
  bool saw_temp = false;
  const Child child = run_child(
      {"predict", "--layers", csv.string(), "--gpu", "v100", "-o", (dir / "out.csv").string()},
      [&](pid_t pid) {
        // The temporary file appears once the output is opened; stop the process then.
        const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(60);
        while (!saw_temp && std::chrono::steady_clock::now() < deadline) {
          saw_temp = entries_in(dir) > 0;
          if (!saw_temp) std::this_thread::sleep_for(std::chrono::milliseconds(1));
        }
        ::kill(pid, SIGTERM);
      });
  ASSERT_TRUE(saw_temp) << "no temporary file seen while it ran";
  EXPECT_EQ(child.signal, SIGTERM) << "exit " << child.exit_code << ": " << child.err;
  EXPECT_EQ(entries_in(dir), 0U) << "a file was left";
}

}  // namespace
}  // namespace cnnperf::cli_test
