#ifndef KVLAB_BASE_MEMORY_VALUE_H_
#define KVLAB_BASE_MEMORY_VALUE_H_

#include <cstdint>
#include <string_view>

namespace kvlab {

// Redis's memory values (memtoull in util.c): decimal digits, then an optional unit b, k, kb, m,
// mb, g, gb in any case (k = 1000, kb = 1024). Returns false on anything else, including an
// empty number, a sign, spaces or a value that does not fit in 64 bits; *bytes is then unchanged.
// Shared by the engine's CONFIG parameters and the backends' disk reserve, which cannot include
// the engine.
bool ParseMemoryValue(std::string_view text, uint64_t* bytes);

}  // namespace kvlab

#endif  // KVLAB_BASE_MEMORY_VALUE_H_
