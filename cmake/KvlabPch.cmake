# Shared precompiled headers: most of kvlab's ~260 translation units parse the same standard
# headers, and the ~80 test sources GoogleTest on top; with GCC that parse is 3-5 s of CPU per
# translation unit, i.e. a large part of a clean (CI) build. Two host targets each compile
# one precompiled header; every other C++ target reuses one of them (REUSE_FROM), so the
# header set is parsed twice per build instead of once per source file.
#
# The headers below change nothing a source may rely on: each source still includes what it
# uses (the build without precompiled headers, -DKVLAB_PCH=OFF, must keep compiling). GCC
# uses a precompiled header only when the flags that matter match (-std, -O, -g, macros the
# headers read); otherwise it silently parses the text instead, so a mismatch costs time, not
# correctness (-Winvalid-pch reports one).
option(KVLAB_PCH "Build with shared precompiled headers (faster clean builds)" ON)

set(KVLAB_PCH_STD_HEADERS
  <algorithm> <atomic> <chrono> <cstdint> <cstdio> <cstring> <filesystem> <fstream>
  <functional> <map> <memory> <mutex> <optional> <random> <set> <sstream> <string>
  <string_view> <thread> <unordered_map> <utility> <vector>)

# kvlab_pch_hosts(): defines the two host targets. Called before the modules' directories.
function(kvlab_pch_hosts)
  if(NOT KVLAB_PCH)
    return()
  endif()
  # Libraries and tools: the standard headers and nlohmann/json (the results' format).
  add_library(kvlab_pch_lib OBJECT ${PROJECT_SOURCE_DIR}/cmake/pch_host.cc)
  target_link_libraries(kvlab_pch_lib PRIVATE nlohmann_json::nlohmann_json)
  target_precompile_headers(kvlab_pch_lib PRIVATE ${KVLAB_PCH_STD_HEADERS} <nlohmann/json.hpp>)
  # Tests: the same plus GoogleTest, with GoogleTest's compile definitions (GTEST_HAS_PTHREAD).
  add_library(kvlab_pch_test OBJECT ${PROJECT_SOURCE_DIR}/cmake/pch_host.cc)
  target_link_libraries(kvlab_pch_test PRIVATE nlohmann_json::nlohmann_json GTest::gtest)
  target_precompile_headers(kvlab_pch_test PRIVATE ${KVLAB_PCH_STD_HEADERS} <nlohmann/json.hpp>
                            <gtest/gtest.h>)
endfunction()

function(kvlab_pch_collect dir out)
  get_property(targets DIRECTORY ${dir} PROPERTY BUILDSYSTEM_TARGETS)
  get_property(subdirs DIRECTORY ${dir} PROPERTY SUBDIRECTORIES)
  foreach(sub ${subdirs})
    kvlab_pch_collect(${sub} sub_targets)
    list(APPEND targets ${sub_targets})
  endforeach()
  set(${out} ${targets} PARENT_SCOPE)
endfunction()

# kvlab_pch_apply(): every C++ library and executable of the project reuses one of the hosts:
# the test one when it links GoogleTest. Called after the modules' directories, so a target a
# module adds later is covered without editing its CMakeLists.txt. A target opts out with
# set_target_properties(<t> PROPERTIES KVLAB_NO_PCH ON).
function(kvlab_pch_apply)
  if(NOT KVLAB_PCH)
    return()
  endif()
  kvlab_pch_collect(${PROJECT_SOURCE_DIR} targets)
  foreach(t ${targets})
    if(t STREQUAL "kvlab_pch_lib" OR t STREQUAL "kvlab_pch_test")
      continue()
    endif()
    get_target_property(type ${t} TYPE)
    if(NOT type MATCHES "^(STATIC_LIBRARY|OBJECT_LIBRARY|EXECUTABLE)$")
      continue()
    endif()
    get_target_property(skip ${t} KVLAB_NO_PCH)
    get_target_property(own ${t} PRECOMPILE_HEADERS)
    if(skip OR own)
      continue()
    endif()
    get_target_property(sources ${t} SOURCES)
    list(FILTER sources INCLUDE REGEX "\\.(cc|cpp|cxx)$")
    if(NOT sources)
      continue()
    endif()
    get_target_property(libs ${t} LINK_LIBRARIES)
    if(libs MATCHES "GTest::")
      target_precompile_headers(${t} REUSE_FROM kvlab_pch_test)
    else()
      target_precompile_headers(${t} REUSE_FROM kvlab_pch_lib)
    endif()
  endforeach()
endfunction()
