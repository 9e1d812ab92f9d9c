# SPDX-License-Identifier: Apache-2.0
# Quick start: `make demo` (build + predict ResNet-50 on an A100), `make test` (build, format and
# tidy checks, ctest, then the fuzz targets' short repeatable run and the parsers' unit tests
# under ASan and UBSan).
# Both install missing Debian packages first (apt-get, when run as root).

BUILD_DIR ?= build
JOBS ?= $(shell nproc)
CMAKE_FLAGS ?=
# Recompiles of unchanged sources come from ccache when it is installed (optional).
CCACHE := $(shell command -v ccache 2>/dev/null)
ifneq ($(CCACHE),)
CMAKE_FLAGS += -DCMAKE_CXX_COMPILER_LAUNCHER=$(CCACHE)
endif
DEB_PACKAGES := cmake g++ make pkg-config libgtest-dev libgmock-dev libbenchmark-dev \
  libxgboost-dev libcli11-dev nlohmann-json3-dev libsimdjson-dev libspdlog-dev libeigen3-dev \
  libnanoflann-dev libonnx-dev libprotobuf-dev protobuf-compiler zlib1g-dev libonnx-testdata \
  python3 hyperfine

.PHONY: all deps configure build demo test bench clean format format-check tidy fuzz fuzz-smoke \
  test-sanitize test-sanitize-parsers

all: build

deps:
	@./tools/install_deps.sh $(DEB_PACKAGES)

$(BUILD_DIR)/CMakeCache.txt: | deps
	cmake -S . -B $(BUILD_DIR) -DCMAKE_BUILD_TYPE=Release $(CMAKE_FLAGS)

configure: deps $(BUILD_DIR)/CMakeCache.txt

build: configure
	cmake --build $(BUILD_DIR) -j $(JOBS)

demo: build
	$(BUILD_DIR)/cnnperf predict --net resnet50 --gpu a100

test: build format-check tidy
	cd $(BUILD_DIR) && ctest --output-on-failure -j $(JOBS)
	@$(MAKE) --no-print-directory fuzz-smoke
	@$(MAKE) --no-print-directory test-sanitize-parsers

bench: build
	./bench/run_benchmarks.sh $(BUILD_DIR)

CXX_FILES = $(shell git ls-files '*.cpp' '*.hpp' 2>/dev/null)

format:
	@./tools/install_deps.sh clang-format
	clang-format -i $(CXX_FILES)

# Fails when a C++ file is not laid out as .clang-format says (`make format` fixes it).
format-check:
	@./tools/install_deps.sh clang-format
	@if [ -z "$(CXX_FILES)" ]; then echo "format-check: not a git checkout, skipped"; \
	else clang-format --dry-run --Werror $(CXX_FILES) && echo "format-check: clean"; fi

# clang-tidy on every library and CLI source; fails on a finding (tools/run_tidy.sh).
tidy: configure
	@./tools/install_deps.sh clang-tidy
	./tools/run_tidy.sh $(BUILD_DIR) $(JOBS)

# libFuzzer targets, one per parser, with ASan and UBSan (clang; build folder build-fuzz):
# FUZZ_SECONDS per target, one target at a time. FUZZ_MERGE=1 merges what a run found back into
# tests/fuzz/corpus/ (minimized); FUZZ_TARGETS="report ..." picks targets. docs/fuzzing.md.
FUZZ_SECONDS ?= 600
fuzz:
	@./tools/install_deps.sh clang libclang-rt-14-dev
	JOBS=$(JOBS) ./tests/fuzz/run_fuzz.sh $(FUZZ_SECONDS)

# The short, repeatable run `make test` ends with: 20,000 inputs per target (4,000 of the slow
# model_file) from libFuzzer seed 1, each target at most 60 s: the same length on any machine
# that reaches the count. docs/fuzzing.md.
fuzz-smoke:
	@FUZZ_RUNS=20000 FUZZ_RUNS_model_file=4000 FUZZ_SEED=1 \
	  $(MAKE) --no-print-directory fuzz FUZZ_SECONDS=60

# The parsers' unit tests (test_common, test_model, test_report) on the fuzz build's ASan and
# UBSan libraries: the part of test-sanitize that `make test` runs (docs/fuzzing.md).
test-sanitize-parsers:
	@./tools/install_deps.sh clang libclang-rt-14-dev
	JOBS=$(JOBS) ./tests/fuzz/run_sanitized_tests.sh

# The library, the CLI and the tests built with ASan and UBSan in their own folder, then ctest.
# Tests left out, each with its reason in docs/fuzzing.md: SANITIZE_EXCLUDE (a ctest -E regex).
# clang at -O1 with line tables, as the fuzz build (SANITIZE_CC, SANITIZE_CXX: another compiler).
SANITIZE_BUILD_DIR ?= build-sanitize
SANITIZE_EXCLUDE ?= ^$$
SANITIZE_CC ?= clang
SANITIZE_CXX ?= clang++
test-sanitize: deps
	@./tools/install_deps.sh clang
	CC=$(SANITIZE_CC) CXX=$(SANITIZE_CXX) cmake -S . -B $(SANITIZE_BUILD_DIR) \
	  -DCMAKE_BUILD_TYPE=RelWithDebInfo -DCMAKE_CXX_FLAGS_RELWITHDEBINFO="-O1 -gline-tables-only -DNDEBUG" \
	  -DCNNPERF_SANITIZE=ON -DCNNPERF_BUILD_BENCH=OFF -DCNNPERF_WITH_CUDA=OFF $(CMAKE_FLAGS)
	cmake --build $(SANITIZE_BUILD_DIR) -j $(JOBS)
	cd $(SANITIZE_BUILD_DIR) && ASAN_OPTIONS=detect_leaks=1 \
	  UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1 \
	  ctest --output-on-failure -j $(JOBS) -E '$(SANITIZE_EXCLUDE)'

clean:
	rm -rf $(BUILD_DIR)
