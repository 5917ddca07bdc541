# A shared precompiled header for the test binaries: their ~80 sources each parse GoogleTest,
# nlohmann/json and the same standard headers, 4-6 s of GCC's CPU time per source (docs/ci.md).
# One host target compiles the header once; every target that links GoogleTest reuses it
# (REUSE_FROM). The libraries do not use it: most of their sources are small, and loading the
# precompiled header (about 150 MB with -g) cost a small source more than it saved
# (base/status.cc: 1.0 s of CPU without, 2.6 s with; docs/ci.md).
#
# The header changes nothing a source may rely on: each source still includes what it uses
# (-DKVLAB_PCH=OFF builds without it and must keep compiling). GCC uses a precompiled header
# only when the flags that matter match (-std, -O, -g, macros the headers read such as
# GTEST_HAS_PTHREAD); otherwise it parses the text instead, so a mismatch costs time, not
# correctness (CMake passes -Winvalid-pch, which reports one).
option(KVLAB_PCH "Build the tests with a shared precompiled header (faster clean builds)" ON)

set(KVLAB_PCH_TEST_HEADERS
  <algorithm> <atomic> <chrono> <cstdint> <cstdio> <cstring> <filesystem> <fstream>
  <functional> <map> <memory> <mutex> <optional> <random> <set> <sstream> <string>
  <string_view> <thread> <unordered_map> <utility> <vector> <nlohmann/json.hpp> <gtest/gtest.h>)

# kvlab_pch_hosts(): defines the host target. Called before the modules' directories.
function(kvlab_pch_hosts)
  if(NOT KVLAB_PCH)
    return()
  endif()
  # A source for the host to compile (in the build tree: no C++ outside the modules).
  set(host ${PROJECT_BINARY_DIR}/kvlab_pch_host.cc)
  file(CONFIGURE OUTPUT ${host} CONTENT "// Compiled only to build the precompiled header.\n")
  # With GoogleTest's compile definitions (GTEST_HAS_PTHREAD), as its users have them.
  add_library(kvlab_pch_test OBJECT ${host})
  target_link_libraries(kvlab_pch_test PRIVATE nlohmann_json::nlohmann_json GTest::gtest)
  target_precompile_headers(kvlab_pch_test PRIVATE ${KVLAB_PCH_TEST_HEADERS})
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

# kvlab_pch_apply(): every executable with C++ sources that links GoogleTest reuses the host's
# header. Called after the modules' directories, so a test binary a module adds later is
# covered without a line in its CMakeLists.txt. A target opts out with
# set_target_properties(<t> PROPERTIES KVLAB_NO_PCH ON).
function(kvlab_pch_apply)
  if(NOT KVLAB_PCH)
    return()
  endif()
  kvlab_pch_collect(${PROJECT_SOURCE_DIR} targets)
  foreach(t ${targets})
    get_target_property(type ${t} TYPE)
    if(t STREQUAL "kvlab_pch_test" OR NOT type STREQUAL "EXECUTABLE")
      continue()
    endif()
    get_target_property(skip ${t} KVLAB_NO_PCH)
    get_target_property(own ${t} PRECOMPILE_HEADERS)
    get_target_property(libs ${t} LINK_LIBRARIES)
    get_target_property(sources ${t} SOURCES)
    list(FILTER sources INCLUDE REGEX "\\.(cc|cpp|cxx)$")
    if(skip OR own OR NOT sources OR NOT libs MATCHES "GTest::")
      continue()
    endif()
    target_precompile_headers(${t} REUSE_FROM kvlab_pch_test)
  endforeach()
endfunction()
