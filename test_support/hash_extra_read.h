// A test-only hash decorator: every field read (HGET, HSETNX, HINCRBY... anything that calls
// HashEncoding::Get) issues one extra KV get before the real one.
//
// It exists to prove that kvlab's CI gate catches a change that adds a single KV read to a
// command (gate/gate_cli_test.cc). It is installed only through
// EngineOptions::hash_decorator, which `--test-extra-hget-read` (a hidden flag of the
// subcommands that run an engine) sets from the hook the kvlab binary's main hands to flags/
// (test_support/test_hooks.h); nothing in the command path, and nothing in flags/, knows it.
#pragma once

#include <memory>

#include "encodings/hash_encoding.h"

namespace kvlab::test_support {

// `inner` with one extra, counted KV get (of a key no encoding writes) in Get. Every other
// method is inner's. The reply is unchanged.
std::unique_ptr<encodings::HashEncoding> NewExtraReadHashEncoding(
    std::unique_ptr<encodings::HashEncoding> inner);

}  // namespace kvlab::test_support
