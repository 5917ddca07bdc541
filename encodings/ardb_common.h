// What the Ardb versions share (../shared/spec/001_*, 002_*; key_meta.h and key_codec.h give
// the bytes): Ardb's records carry no key-version, so a key's records are exactly those under
// its a# prefix (KeyCodec::ArdbKeyPrefix), whatever incarnation wrote them. Hence:
//   - deleting a key deletes its records, in the same batch (Ardb's DEL: one read of the meta,
//     then a delete of every sub-key, O(n));
//   - creating a key first deletes whatever records its prefix still holds, so that nothing of
//     an earlier incarnation can reappear: kvlab's SET overwrites any key blindly (one put, no
//     read, for every family) and an expired key is only absent to commands, so an old Ardb key's
//     records may outlive its meta. Normally there are none, and it costs one seek.
// Ardb's values repeat the record's type byte (001_*: "general value format is <type>
// <element...>"): ArdbValue and StripArdbValue write and check it.
#pragma once

#include <string>
#include <string_view>

#include "base/status.h"
#include "encodings/key_meta.h"
#include "encodings/kv_reads.h"
#include "encodings/kv_txn.h"

namespace kvlab::encodings {

// Deletes every record of the Ardb key `h` names: one scan of its a# prefix (a seek, and a next
// per record), one delete per record, in the command's batch. The meta is the caller's.
inline Status PurgeArdbKey(KvTxn& txn, const KeyHandle& h) {
  const std::string prefix = txn.SubKeyPrefix(SubKeyTag::kArdb, h);
  return ScanPrefix(txn.kv(), prefix, [&](std::string_view suffix, std::string_view) {
    txn.batch().Delete(prefix + std::string(suffix));
    return true;
  });
}

// An Ardb record's value: its type byte, then the data.
inline std::string ArdbValue(ArdbTag tag, std::string_view data) {
  std::string out;
  out.reserve(1 + data.size());
  out.push_back(static_cast<char>(tag));
  out.append(data);
  return out;
}

// The data of an Ardb record's value, after checking its type byte.
inline Status StripArdbValue(ArdbTag tag, std::string_view stored, std::string_view* data) {
  if (stored.empty() || static_cast<uint8_t>(stored[0]) != static_cast<uint8_t>(tag)) {
    return Status::Corruption("Ardb record's value does not start with its type " +
                              std::to_string(static_cast<int>(tag)));
  }
  *data = stored.substr(1);
  return Status::OK();
}

}  // namespace kvlab::encodings
