// The decorators behind kvlab's hidden test-only switches (--test-extra-hget-read), as the hooks
// flags/ installs them through (flags::TestHooks). The kvlab binary's main is the only product
// code that links this library: it hands TestHooks() to the subcommands it adds, so that flags/
// and the libraries below it ship no test decorator and name none (scripts/check-layers puts
// test_support/ above every module but cli/).
#pragma once

#include "flags/common_flags.h"

namespace kvlab::test_support {

// Every hook set: extra_hget_read is NewExtraReadHashEncoding (hash_extra_read.h).
flags::TestHooks TestHooks();

}  // namespace kvlab::test_support
