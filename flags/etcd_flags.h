// The flags of the etcd backend (--backend etcd, or an etcd column of a matrix), shared by every
// subcommand that opens a store (StoreFlags) and by `kvlab conform`: the cluster, its
// --max-txn-ops, TLS and authentication (docs/etcd.md, "Security").
#pragma once

#include <CLI/CLI.hpp>
#include <string>
#include <vector>

#include "backends/etcd_store.h"

namespace kvlab::flags {

// The environment variable that holds the password of --etcd-user (unless
// --etcd-password-file names a file): never a flag, since a command line shows in `ps`.
inline constexpr char kEtcdPasswordVariable[] = "KVLAB_ETCD_PASSWORD";

struct EtcdFlags {
  std::vector<std::string> endpoints;  // --etcd-endpoints host:port,... (empty: a private cluster)
  uint32_t max_txn_ops = 0;            // --etcd-max-txn-ops (0: not given)
  std::string ca_file;                 // --etcd-cacert
  std::string cert_file;               // --etcd-cert
  std::string key_file;                // --etcd-key
  std::string user;                    // --etcd-user
  std::string password_file;           // --etcd-password-file

  // Adds --etcd-endpoints, --etcd-max-txn-ops, --etcd-cacert, --etcd-cert, --etcd-key,
  // --etcd-user and --etcd-password-file, with the checks the parser can make: a
  // --etcd-max-txn-ops of at least 1, files that exist, --etcd-cert and --etcd-key together and
  // with --etcd-cacert, --etcd-password-file with --etcd-user, and TLS and authentication only
  // with --etcd-endpoints (the private cluster has neither).
  void AddTo(CLI::App* app);
  // The backend's options, with the password of --etcd-user read from --etcd-password-file (its
  // first line), else from $KVLAB_ETCD_PASSWORD. Throws UsageError when --etcd-user has no
  // password, or the password file cannot be read or is empty.
  backends::EtcdOptions ToOptions() const;
  // The flags given, as command-line arguments ({"--etcd-endpoints", "a:1,b:2", ...}), for a
  // replay line. Never the password: its file is named, its variable must be set again.
  std::vector<std::string> Arguments() const;
};

}  // namespace kvlab::flags
