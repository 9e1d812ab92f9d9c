# SPDX-License-Identifier: Apache-2.0
# Third-party packages (all from Debian 12). Distro quirks live here, nowhere else.
find_package(nlohmann_json 3.11 REQUIRED)
find_package(simdjson 3 REQUIRED)   # the fast path of parse_json_text (src/common/json_io.cpp)
find_package(spdlog REQUIRED)
find_package(CLI11 REQUIRED)
find_package(Eigen3 3.4 REQUIRED NO_MODULE)
find_package(nanoflann REQUIRED)   # Debian's config reports 1.4.2 for 1.4.3: no version check
find_package(ZLIB REQUIRED)
find_package(Threads REQUIRED)

# Debian's xgboost CMake config imports a CLI binary that libxgboost-dev does not ship,
# so the C library is found by hand.
find_path(XGBOOST_INCLUDE_DIR xgboost/c_api.h REQUIRED)
find_library(XGBOOST_LIBRARY xgboost REQUIRED)
add_library(cnnperf::xgboost UNKNOWN IMPORTED)
set_target_properties(cnnperf::xgboost PROPERTIES IMPORTED_LOCATION ${XGBOOST_LIBRARY}
                      INTERFACE_INCLUDE_DIRECTORIES ${XGBOOST_INCLUDE_DIR})
# cnnperf itself dlopen's the library (src/ml/xgboost_library.cpp) by its soname, with the path
# found here as the fallback; only tests that call XGBoost directly link cnnperf::xgboost.
get_filename_component(XGBOOST_LIBRARY_REAL ${XGBOOST_LIBRARY} REALPATH)
set(XGBOOST_SONAME "")
find_program(CNNPERF_OBJDUMP objdump)
if(CNNPERF_OBJDUMP)
  execute_process(COMMAND ${CNNPERF_OBJDUMP} -p ${XGBOOST_LIBRARY_REAL}
                  OUTPUT_VARIABLE _xgb_headers ERROR_QUIET)
  string(REGEX MATCH "SONAME +([^ \n]+)" _xgb_soname "${_xgb_headers}")
  set(XGBOOST_SONAME "${CMAKE_MATCH_1}")
endif()
if(NOT XGBOOST_SONAME)
  get_filename_component(XGBOOST_SONAME ${XGBOOST_LIBRARY_REAL} NAME)
endif()
add_library(cnnperf::xgboost_headers INTERFACE IMPORTED)
set_target_properties(cnnperf::xgboost_headers PROPERTIES
  INTERFACE_INCLUDE_DIRECTORIES ${XGBOOST_INCLUDE_DIR}
  INTERFACE_COMPILE_DEFINITIONS
    "CNNPERF_XGBOOST_SONAME=\"${XGBOOST_SONAME}\";CNNPERF_XGBOOST_PATH=\"${XGBOOST_LIBRARY_REAL}\"")

# ONNX needs protobuf found first (libonnx-dev does not depend on libprotobuf-dev).
find_package(Protobuf REQUIRED)
find_package(ONNX CONFIG REQUIRED)

# CUDA back end: toolkit + cuDNN + CUPTI. NVML is dlopen'ed at run time, never linked.
set(CNNPERF_HAVE_CUDA OFF)
if(NOT CNNPERF_WITH_CUDA STREQUAL "OFF")
  find_package(CUDAToolkit QUIET)
  if(CUDAToolkit_FOUND)
    find_path(CUDNN_INCLUDE_DIR cudnn.h HINTS ${CUDAToolkit_INCLUDE_DIRS})
    find_library(CUDNN_LIBRARY cudnn HINTS ${CUDAToolkit_LIBRARY_DIR})
  endif()
  if(CUDAToolkit_FOUND AND TARGET CUDA::cupti AND CUDNN_INCLUDE_DIR AND CUDNN_LIBRARY)
    add_library(cnnperf::cudnn UNKNOWN IMPORTED)
    set_target_properties(cnnperf::cudnn PROPERTIES IMPORTED_LOCATION ${CUDNN_LIBRARY}
                          INTERFACE_INCLUDE_DIRECTORIES ${CUDNN_INCLUDE_DIR})
    set(CNNPERF_HAVE_CUDA ON)
    message(STATUS "cnnperf: CUDA back end ON (CUDA ${CUDAToolkit_VERSION}, cuDNN ${CUDNN_LIBRARY})")
  elseif(CNNPERF_WITH_CUDA STREQUAL "ON")
    message(FATAL_ERROR "CNNPERF_WITH_CUDA=ON but the CUDA toolkit, CUPTI or cuDNN was not found")
  else()
    message(STATUS "cnnperf: CUDA back end OFF (toolkit, CUPTI or cuDNN not found)")
  endif()
endif()
