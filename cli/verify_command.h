// `kvlab verify`: scrubs a store and reports what is damaged, writing nothing (docs/engine.md,
// "Checksums and kvlab verify").
//
//   kvlab verify --dir DIR [--backend B] [the engine's layout flags] [--max-report N]
//
// It checks, in this order:
// 1. checksums: every record of a store whose values carry them (an LMDB store,
//    backends/checksum_store.h) is read below the checksum layer and verified;
// 2. key-metas: every meta of every database decodes, against the encoding registry;
// 3. counts: for every live key of a version whose meta keeps an element count and whose
//    elements are all in KV, one record per element in each of its sub-key kinds (hash, set
//    and zset v0 and their Kvrocks layouts), the sub-keys of the key's current key-version are
//    counted and compared with the meta's count;
// 4. garbage: the collector's dry run (engine/collector.h) counts the sub-keys no live meta
//    names and the expired metas: reclaimable by `kvlab gc`, not damage.
// Damage is a checksum mismatch, an undecodable meta or sub-key, a count that differs from the
// sub-keys, or a walk the backend itself stopped with an error. Each kind is reported with the
// keys it names, at most --max-report of them per kind, then a count of the rest.
//
// The backend is read from the store's marker when --backend is not given. The store is opened
// as `kvlab gc --dry-run` opens it: nothing is written through the KV interface; the backends
// open their files as they always do (RocksDB writes a new MANIFEST and info LOG on open).
//
// Exit status (flags/conventions.h): 0 clean (garbage alone is clean); 1 damage found; 2 usage:
// no --dir, or a --dir that is not a store; 3 the store cannot be opened.
#pragma once

#include <CLI/CLI.hpp>

namespace kvlab::flags {
struct TestHooks;  // flags/common_flags.h
}  // namespace kvlab::flags

namespace kvlab::cli {

// `hooks`: the test-only switches the binary supplies (flags::TestHooks); copied while adding.
void AddVerifyCommand(CLI::App& app, const flags::TestHooks& hooks, int* exit_code);

}  // namespace kvlab::cli
