// kvlab's version, as `kvlab --version` and INFO's kvlab_version report it.
#pragma once

namespace kvlab {

inline constexpr const char* kKvlabVersion = "0.1";

}  // namespace kvlab
