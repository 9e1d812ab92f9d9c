# SPDX-License-Identifier: Apache-2.0
# Warning flags shared by every cnnperf target.
add_library(cnnperf_warnings INTERFACE)
target_compile_options(cnnperf_warnings INTERFACE -Wall -Wextra -Wpedantic)
# GCC 12 reports -Wrestrict false positives inside libstdc++ for `"literal" + std::string`
# (GCC bug 105329); the warning is off for GCC 12 only.
if(CMAKE_CXX_COMPILER_ID STREQUAL "GNU" AND CMAKE_CXX_COMPILER_VERSION VERSION_LESS 13)
  target_compile_options(cnnperf_warnings INTERFACE -Wno-restrict)
endif()
if(CNNPERF_WERROR)
  target_compile_options(cnnperf_warnings INTERFACE -Werror)
endif()
