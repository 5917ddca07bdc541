// The etcd backend: a KvStore over etcd's v3 gRPC API (the KV service of etcd's rpc.proto,
// compiled at build time from Debian's golang-etcd-server-dev; backends/CMakeLists.txt).
//
// Where the data lives: under a key prefix of its own ("kvlab/<random hex>/"), chosen when the
// store is created and kept in the store's directory (file "etcd-prefix"), so that one cluster
// holds several stores. The cluster is EtcdOptions::endpoints, or, when none are given, a
// private 3-member cluster under the store's directory (etcd_cluster.h) that lives as long as
// the store, its members supervised: one that exits unasked is restarted after a backoff, each
// exit and restart is logged (EtcdOptions::log), and PrivateServers() shows their states.
//
// How each call maps to etcd (every request is one gRPC round trip):
// - Get: one Range of one key. MultiGet: one Txn of Ranges, one per key (several Txns when the
//   keys exceed the cluster's --max-txn-ops).
// - Put, Delete, DeleteRange: one Put, one DeleteRange of one key, one DeleteRange of a range.
// - Write(batch): one Txn, so a batch is atomic. etcd refuses a Txn that writes a key twice or
//   puts a key inside a range it deletes, so the batch is first reduced to its net effect (the
//   last write of each key wins; a range delete is split around the keys put after it).
// - An iterator reads pages of kPageRows rows: a Range with a limit, continued from the key
//   after the last one; a reverse scan is a Range sorted by key in descending order (native in
//   etcd). Every page of one seek reads at the revision of its first page, so a scan sees one
//   consistent view.
//
// Limits (etcd's, checked before sending, with an error naming the limit and the request):
// --max-request-bytes (kEtcdMaxRequestBytes, etcd's default 1.5 MiB) bounds a request, so a
// batch's keys and values; --max-txn-ops (EtcdOptions::max_txn_ops) bounds a batch's
// operations after reduction. kvlab's private members run with --max-txn-ops 10000.
//
// Failures: a request that finds no leader or no answer (gRPC UNAVAILABLE or DEADLINE_EXCEEDED)
// is retried on the next endpoint until EtcdOptions::timeout_ms has passed, then fails
// with Unavailable naming the endpoints and etcd's last error. A retried request may have been
// applied once already; every request kvlab sends sets absolute values, so applying it twice
// leaves the same data. The time spent waiting shows in the counters below.
//
// Security (EtcdOptions): TLS with a CA to verify the members and an optional client
// certificate; etcd's user/password authentication, with a token fetched at open, sent with
// every request and renewed once when etcd says it expired. A TLS handshake that fails on every
// endpoint fails the call at once, naming TLS (no retrying a certificate that will not change).
//
// Physical counters (store-wide totals): etcd.round_trips, etcd.bytes_sent, etcd.bytes_received
// (protobuf message sizes), etcd.retries, etcd.wait_us (time spent retrying),
// etcd.longest_wait_us (the longest single pause, e.g. a leader election), and
// etcd.authentications (Auth.Authenticate calls: the one at open, then one per expired token).
#pragma once

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "backends/kv_store.h"

namespace kvlab::backends {

struct EtcdOptions {
  // The client endpoints ("host:port") of the cluster the store lives in, under a key prefix of
  // its own kept in the store's directory. Empty: a private 3-member cluster kvlab starts under
  // the store's directory (etcd_cluster.h).
  std::vector<std::string> endpoints;
  // How long an operation keeps retrying while the cluster has no leader or a member does not
  // answer, before it fails with an error that names the cluster's state.
  uint32_t timeout_ms = 10000;
  // The cluster's --max-txn-ops, which bounds a batch (and the keys of one MultiGet Txn). For
  // given endpoints, what the store takes the cluster's limit to be; for the private cluster,
  // the limit its members run with. 0: etcd's default (128) for given endpoints,
  // kPrivateMaxTxnOps (10000) for the private cluster.
  uint32_t max_txn_ops = 0;

  // TLS (etcd's --cert-file, --trusted-ca-file, --client-cert-auth). All are PEM files, read
  // and checked by OpenEtcdStore before any connection; a missing or unreadable one fails the
  // open naming the option and the file. Only with `endpoints` (the private cluster speaks
  // plaintext).
  // ca_file: the CA certificates that verify the members' certificates (their names must cover
  // the endpoints' hosts). Non-empty turns TLS on for every endpoint.
  std::string ca_file;
  // A client certificate and its private key, for clusters that require one
  // (--client-cert-auth). Both or neither, and only with ca_file.
  std::string cert_file;
  std::string key_file;

  // Authentication (a cluster with `etcdctl auth enable`): the user, and its password. Empty
  // user: requests carry no token. Otherwise OpenEtcdStore gets a token with etcd's
  // Auth.Authenticate (failing with "etcd: authentication failed for user '<user>': ..." on a
  // wrong password), every request carries it (gRPC metadata "token"), and a request that etcd
  // refuses with "invalid auth token" (a simple token expires after --auth-token-ttl, 5 minutes
  // by default, of idleness) gets a new token and is sent once more; counted in
  // etcd.authentications. Only with `endpoints`.
  std::string user;
  std::string password;

  // Where the private cluster's supervisor reports its members' exits and restarts, one line
  // each ("the private etcd member1 (pid 123) exited: signal 9; restarting in 100 ms"), from
  // their monitor threads. Default: kvlab's stderr, "kvlab: " and the line, as the Redis tier
  // reports its private servers.
  std::function<void(const std::string&)> log;
};

inline constexpr uint64_t kEtcdMaxRequestBytes = 1536 * 1024;
inline constexpr uint32_t kEtcdDefaultMaxTxnOps = 128;
// Rows per Range page of an iterator.
inline constexpr int kEtcdPageRows = 100;

// Opens the store in options.dir (the key prefix's file, and the private cluster's members when
// `etcd` names no endpoints), and sends it a first request, so that a cluster that cannot be
// reached fails here rather than at the first command.
Status OpenEtcdStore(const StoreOptions& options, const EtcdOptions& etcd,
                     std::unique_ptr<KvStore>* out);

// The files of `dir` that only an etcd store writes, by name (empty: none): its key prefix's
// file (etcd-prefix) and its private cluster's layout (etcd/cluster). The registry refuses a
// store whose KVLAB_STORE marker names another backend while they are there (registry.h).
std::vector<std::string> EtcdFilesIn(const std::string& dir);

}  // namespace kvlab::backends
