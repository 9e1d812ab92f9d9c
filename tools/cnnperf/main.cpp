// SPDX-License-Identifier: Apache-2.0
// cnnperf: builds the command line, parses, runs one library call, maps errors to exit codes.
#include <array>
#include <cstdio>
#include <exception>
#include <string>
#include <string_view>

#include <spdlog/sinks/stdout_color_sinks.h>
#include <spdlog/spdlog.h>

#include "cnnperf/common/config.hpp"
#include "cnnperf/common/error.hpp"
#include "commands.hpp"

namespace {

// The first option or positional of the chosen (sub)commands given an empty string.
std::string empty_value_option(const CLI::App& app) {
  for (const CLI::Option* option : app.get_options()) {
    if (option->count() == 0 || option->get_expected_min() == 0) continue;  // flags take none
    for (const std::string& value : option->results()) {
      if (value.empty()) return option->get_name();
    }
  }
  for (const CLI::App* sub : app.get_subcommands()) {
    if (std::string name = empty_value_option(*sub); !name.empty()) return name;
  }
  return {};
}

struct Command {
  std::string_view name;
  void (*add)(CLI::App&, cnnperf::cli::Runner&);
};
constexpr std::array kCommands{
    Command{"predict", cnnperf::cli::add_predict_command},
    Command{"profile", cnnperf::cli::add_profile_command},
    Command{"ptx", cnnperf::cli::add_ptx_command},
    Command{"train", cnnperf::cli::add_train_command},
    Command{"validate", cnnperf::cli::add_validate_command},
    Command{"gpus", cnnperf::cli::add_gpus_command},
    Command{"nets", cnnperf::cli::add_nets_command},
    Command{"plan", cnnperf::cli::add_plan_command},
    Command{"report", cnnperf::cli::add_report_command},
};

// Declaring every command's options is most of a short run's start-up, so only the command
// the first argument after the app's own -v names is declared; --version needs none; anything
// else (--help, a typo, no argument) gets them all, to list them.
void add_commands(CLI::App& app, cnnperf::cli::Runner& run, int argc, char** argv) {
  std::string_view first;
  for (int i = 1; i < argc && first.empty(); ++i) {
    const std::string_view arg = argv[i];
    if (arg != "-v" && arg != "--verbose") first = arg;
  }
  if (first == "--version") return;
  for (const Command& command : kCommands) {
    if (command.name == first) {
      command.add(app, run);
      return;
    }
  }
  for (const Command& command : kCommands) command.add(app, run);
}

int run_cli(int argc, char** argv) {
  // Logs and progress go to stderr; results go to stdout or --output.
  spdlog::set_default_logger(spdlog::stderr_color_mt("cnnperf"));
  spdlog::set_pattern("cnnperf: %^%l%$: %v");
  spdlog::set_level(spdlog::level::warn);

  CLI::App app{
      "cnnperf: CNN latency and energy on NVIDIA GPUs, including GPUs you do not own.\n"
      "Example: cnnperf predict --net resnet50 --gpu a100",
      "cnnperf"};
  app.set_version_flag("--version", std::string("cnnperf ") + CNNPERF_VERSION);
  app.require_subcommand(1);
  // Options a subcommand does not know go up to the app, so `cnnperf predict -v ...` works
  // like `cnnperf -v predict ...` (set before the subcommands, which inherit it).
  app.fallthrough();
  bool verbose = false;
  app.add_flag("-v,--verbose", verbose, "Log progress details to stderr");
  app.parse_complete_callback([&] {
    if (verbose) spdlog::set_level(spdlog::level::info);
  });

  cnnperf::cli::Runner run;
  add_commands(app, run, argc, argv);

  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    // --help and --version arrive as "errors" with a success code: CLI11 prints them.
    if (e.get_exit_code() == static_cast<int>(CLI::ExitCodes::Success)) return app.exit(e);
    // Bad usage is exit 2 with one line, like every other failure.
    std::string what = e.what();
    if (argc > 1 && argv[1][0] != '-' && app.get_subcommands().empty()) {
      what = std::string("unknown subcommand '") + argv[1] + "': expected one of";
      const auto all = app.get_subcommands([](const CLI::App*) { return true; });
      for (const CLI::App* sub : all) what += " " + sub->get_name();
    }
    // CLI11's words for a single-value option given twice (or positionally and by name).
    const std::string at_most = "At Most 1 required but received ";
    if (const auto pos = what.find(at_most); pos != std::string::npos) {
      what = what.substr(0, pos) + "given " + what.substr(pos + at_most.size()) +
             " times; expected once";
    }
    std::fprintf(stderr, "cnnperf: error: %s (see --help)\n", what.c_str());
    return cnnperf::cli::kExitBadInput;
  }
  // An explicitly empty value ("--nets ''", "gpus show ''") read as "not given" before, which
  // for several options means "everything": name it instead.
  if (const std::string empty = empty_value_option(app); !empty.empty()) {
    std::fprintf(stderr, "cnnperf: error: %s: expected a value, got an empty string (see --help)\n",
                 empty.c_str());
    return cnnperf::cli::kExitBadInput;
  }
  try {
    return run ? run() : cnnperf::cli::kExitBadInput;
  } catch (const cnnperf::BudgetExceeded& e) {
    std::fprintf(stderr, "cnnperf: error: %s\n", e.what());
    return cnnperf::cli::kExitOverBudget;
  } catch (const cnnperf::ParameterError& e) {
    std::fprintf(stderr, "cnnperf: error: %s: %s\n",
                 cnnperf::cli::option_for_parameter(e.parameter()).c_str(), e.detail().c_str());
    return cnnperf::cli::kExitBadInput;
  } catch (const cnnperf::InputError& e) {
    std::fprintf(stderr, "cnnperf: error: %s\n", e.what());
    return cnnperf::cli::kExitBadInput;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "cnnperf: error: %s\n", e.what());
    return cnnperf::cli::kExitRuntimeFailure;
  }
}

}  // namespace

int main(int argc, char** argv) {
  // Setting up the logger and the command line can throw too (allocation, a logger name
  // registered twice): a message and exit 1 rather than std::terminate.
  try {
    return run_cli(argc, argv);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "cnnperf: error: %s\n", e.what());
    return cnnperf::cli::kExitRuntimeFailure;
  }
}
