// Migration of a key between encode-versions: NeoKV's "reads fall back, writes migrate"
// (../shared/spec/004_* section 1.3; docs/engine.md "Migrating keys on write").
//
// Every key keeps the encode-version it was created with, and reads always go through it (the
// fall-back). With migration on, the engine rewrites a collection key into the configured
// version when a write command is about to change it (engine.cc, CommandContext::LoadChecked),
// with MigrateKey, in the command's one batch; then the write runs on the rewritten key.
#pragma once

#include "base/status.h"
#include "encodings/kv_txn.h"
#include "encodings/type_encoding.h"

namespace kvlab::encodings {

// Rewrites the live key *h, of encoding `from`, as a key of encoding `to`: reads every element
// through `from` (HGETALL, ZRANGE 0 -1, SMEMBERS, LRANGE 0 -1), lets `from` drop the old key as
// an overwrite does (OnDelete: nothing for the lazily deleted versions, whose old sub-keys become
// unreachable with their key-version; every record for Ardb's; the store zset after the commit
// for zset v3), and writes the elements and the expiry under a fresh key-meta of `to`, all in
// txn's batch. On return *h is the new key, and the command's later reads of its sub-keys are
// served from the batch (KvTxn::WriteShadowed), so that the write that follows sees it.
// REQUIRES: *h holds the live meta of a collection of from's type and version; `to` is an
// encoding of the same type, of another version; from.key is locked exclusively.
Status MigrateKey(KvTxn& txn, TypeEncoding& from, TypeEncoding& to, KeyHandle* h);

}  // namespace kvlab::encodings
