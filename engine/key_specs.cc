#include "engine/key_specs.h"

#include <strings.h>

#include "resp/redis_numbers.h"

namespace kvlab::engine {

bool FindKeys(const std::vector<KeySpec>& specs, const std::vector<std::string>& argv,
              std::vector<size_t>* positions) {
  const int argc = static_cast<int>(argv.size());
  for (const KeySpec& spec : specs) {
    if (spec.unknown) continue;
    int first = 0;
    if (spec.keyword.empty()) {
      first = spec.index;
    } else {
      const int start = spec.startfrom > 0 ? spec.startfrom : argc + spec.startfrom;
      const int end = spec.startfrom > 0 ? argc - 1 : 1;
      for (int i = start; i != end; i = start <= end ? i + 1 : i - 1) {
        if (i >= argc || i < 1) break;
        if (strcasecmp(argv[static_cast<size_t>(i)].c_str(), std::string(spec.keyword).c_str()) ==
            0) {
          first = i + 1;
          break;
        }
      }
      if (first == 0) continue;  // the keyword is absent: this spec has no keys
    }
    int last = 0;
    int step = spec.keystep;
    if (spec.find == KeySpec::Find::kRange) {
      if (spec.lastkey >= 0) {
        last = first + spec.lastkey;
      } else if (spec.limit == 0) {
        last = argc + spec.lastkey;
      } else {
        last = first + ((argc - first) / spec.limit + spec.lastkey);
      }
    } else {
      const int at = first + spec.keynumidx;
      int64_t numkeys = 0;
      if (at >= argc || !resp::ParseInt64(argv[static_cast<size_t>(at)], &numkeys) || numkeys < 0) {
        positions->clear();
        return false;
      }
      first += spec.firstkey;
      // As Redis's getKeysUsingKeySpecs: no key, or more keys than arguments, is not a list of
      // keys (ZUNIONSTORE d 0 a, ZINTERCARD 3 a b): the command's own checks reply the error.
      if (numkeys < 1 || numkeys > argc || first + static_cast<int>(numkeys) - 1 >= argc) {
        positions->clear();
        return false;
      }
      last = first + static_cast<int>(numkeys) - 1;
    }
    if (step < 1) step = 1;
    for (int i = first; i <= last; i += step) {
      if (i >= argc) break;  // missing arguments: the command's own checks report them
      if (i >= 1) positions->push_back(static_cast<size_t>(i));
    }
  }
  return true;
}

}  // namespace kvlab::engine
