// What an existing store's KVLAB_STORE marker says (its layout: backends/registry.h), read
// without opening the store.
#pragma once

#include <string>

namespace kvlab::backends {

// The backend that the KVLAB_STORE marker in `dir` names, or "" when `dir` holds no readable
// marker naming a known backend (OpenStore then says what is wrong with it). Subcommands that
// open an existing store take their backend from it when --backend is not given.
std::string MarkedBackend(const std::string& dir);

}  // namespace kvlab::backends
