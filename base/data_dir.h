// Where kvlab finds its run-time data files: the conformance corpus (conformance/cases), the
// deviations catalogue and the amplification table (docs/), and the plot scripts (reports/).
// Nothing is compiled in: a build or an install can be moved.
//
// The data directory is, in order of preference:
//   1. $KVLAB_DATA_DIR, when set;
//   2. <directory of the running binary>/share/kvlab: the build tree, where the build copies
//      the files (build/kvlab, build/share/kvlab);
//   3. <directory of the running binary>/../share/kvlab: an install prefix (PREFIX/bin/kvlab,
//      PREFIX/share/kvlab, as `cmake --install` lays it out), and the build tree's test
//      binaries (build/<module>/x_test).
// The first that exists is used.
#pragma once

#include <string>
#include <string_view>

#include "base/status.h"

namespace kvlab {

// The data file or directory `relative` ("docs/deviations.json"). Fails with NotFound naming
// every place it looked.
Status FindDataFile(std::string_view relative, std::string* path);

// How help texts name a data file without a machine's path: "<data>/docs/deviations.json".
std::string DataFileHelp(std::string_view relative);

}  // namespace kvlab
