#include "test_support/test_hooks.h"

#include "test_support/hash_extra_read.h"

namespace kvlab::test_support {

flags::TestHooks TestHooks() {
  flags::TestHooks hooks;
  hooks.extra_hget_read = NewExtraReadHashEncoding;
  return hooks;
}

}  // namespace kvlab::test_support
