#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# tools/check_layout.py must pass a tree that keeps the rules and name each breach of a tree
# that does not. The trees are synthetic fixtures built here, not the product.
#   check_layout_test.sh CHECKER
set -u
checker=${1:?usage: check_layout_test.sh CHECKER}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
fail() { echo "check_layout_test: $*" >&2; exit 1; }

make_tree() {
  rm -rf "$work/tree"
  mkdir -p "$work/tree"/{src/common,src/model,src/gpu,include/cnnperf/common,include/cnnperf/model}
  cat > "$work/tree/src/model/layer.cpp" <<'CPP'
#include "cnnperf/common/error.hpp"
#include "cnnperf/model/layer.hpp"
// A comment may say --batch; so may /* --gpu */ a block comment.
void check(int batch) {
  if (batch < 1) throw cnnperf::ParameterError("batch", "expected a positive integer");
  const char* dashes = "a -- b";  // two dashes and a space are no option
}
CPP
  echo '#include <cudnn.h>' > "$work/tree/src/gpu/conv.cpp"
  echo '#pragma once' > "$work/tree/include/cnnperf/model/layer.hpp"
  echo '#pragma once' > "$work/tree/include/cnnperf/common/error.hpp"
}

expect_breach() {  # FILE CONTENT WORDS
  make_tree
  mkdir -p "$(dirname "$work/tree/$1")"
  printf '%s\n' "$2" > "$work/tree/$1"
  out=$(python3 "$checker" "$work/tree" 2>&1) && fail "passed a tree with $1: $2"
  [[ $out == *"$3"* ]] || fail "for $1 ($2) said: $out; expected it to name '$3'"
}

make_tree
out=$(python3 "$checker" "$work/tree" 2>&1) || fail "a tree that keeps the rules failed: $out"

expect_breach src/model/zoo.cpp 'void f() { throw InputError("--batch: bad"); }' "'--batch'"
expect_breach src/model/zoo.cpp 'const char* k = R"(use --input-size)";' "'--input-size'"
expect_breach src/common/io.cpp 'int f(const Error& e) { return e.exit_code(); }' "exit_code"
expect_breach src/common/io.cpp 'void f() { std::exit(2); }' "std::exit"
expect_breach include/cnnperf/model/run.hpp 'int run_predict(const Options& o);' "run_predict"
expect_breach src/model/zoo.cpp '#include "cnnperf/predict/predict.hpp"' "module 'model' includes"
expect_breach src/common/io.cpp '#include "cnnperf/model/layer.hpp"' "module 'common' includes"
expect_breach src/model/zoo.cpp '#include <cuda_runtime.h>' "only src/gpu/"
expect_breach src/profile/gpu/conv.cpp '#include <cudnn.h>' "only src/gpu/"
expect_breach src/gpu/conv.cpp '#include "cnnperf/predict/predict.hpp"' "module 'gpu' includes"
expect_breach include/cnnperf/flat.hpp '#pragma once' "outside include/cnnperf/<module>/"
expect_breach include/cnnperf/orphan/x.hpp '#pragma once' "has no src/orphan/"
echo "check_layout_test: a tree that keeps the rules passes; each of 12 breaches is named"
