# SPDX-License-Identifier: Apache-2.0
# Warning flags shared by every cnnperf target.
add_library(cnnperf_warnings INTERFACE)
target_compile_options(cnnperf_warnings INTERFACE -Wall -Wextra -Wpedantic)
if(CNNPERF_WERROR)
  target_compile_options(cnnperf_warnings INTERFACE -Werror)
endif()
