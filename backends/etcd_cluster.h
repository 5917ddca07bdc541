// EtcdCluster: a private etcd cluster that kvlab starts under a store's directory, one `etcd`
// process (Debian's etcd-server) per member, each a kvlab::ChildProcess (base/child_process.h)
// as the Redis tier's private redis-servers are. With `supervise` (the etcd backend's private
// cluster), a member that exits unasked is restarted on its ports and data directory after
// ChildProcess's backoff, and every exit and restart goes to `on_event`.
//
// Layout under `dir`: "cluster" (the members' loopback ports and the cluster token, written at
// the first start and reused by every later one, since etcd records its peers' addresses in its
// data), "member<i>/" (a member's data directory) and "member<i>.log" (its log).
//
// The members listen on 127.0.0.1 only and run with:
// - --max-txn-ops kPrivateMaxTxnOps (10000, etcd's default is 128; EtcdClusterOptions may set
//   another), so that one engine command's batch fits in one Txn; etcd's --max-request-bytes
//   stays at its default, 1.5 MiB;
// - --heartbeat-interval 50 ms and --election-timeout 500 ms (etcd's defaults are 100 and 1000),
//   so that a leader's loss is noticed within about half a second on loopback;
// - periodic auto-compaction keeping 5 minutes of history, so that the MVCC history does not
//   grow without bound (an iterator that lives longer than that loses its pinned revision);
// - plaintext for clients and peers, unless EtcdClusterOptions::tls asks for client TLS (the
//   tests of the backend's TLS), and EtcdClusterOptions::extra_args.
#pragma once

#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "backends/kv_store.h"
#include "base/child_process.h"
#include "base/status.h"

namespace kvlab::backends {

inline constexpr int kPrivateMaxTxnOps = 10000;

// Client TLS of the members (PEM files), for tests of the etcd backend's TLS: the members serve
// clients over TLS only, with cert_file and key_file, and accept only clients with a
// certificate that ca_file signed (etcd's --client-cert-auth --trusted-ca-file). The cluster's
// own probes (Leader()) verify the members with ca_file and present probe_cert_file and
// probe_key_file.
struct EtcdClusterTls {
  std::string ca_file;
  std::string cert_file;
  std::string key_file;
  std::string probe_cert_file;
  std::string probe_key_file;
};

struct EtcdClusterOptions {
  std::string dir;         // created when missing
  int members = 3;         // REQUIRES: >= 1
  bool supervise = false;  // restart a member that exits unasked (ChildProcessOptions)
  // Told of the members' exits and restarts, one line each ("etcd member0 (pid 123) exited:
  // signal 9; restarting in 100 ms"), from their monitor threads. Default: nothing.
  std::function<void(const std::string&)> on_event;
  // The members' --max-txn-ops. REQUIRES: >= 1.
  int max_txn_ops = kPrivateMaxTxnOps;
  // Empty: the members serve clients in plaintext.
  std::optional<EtcdClusterTls> tls;
  // More etcd flags for every member, after kvlab's own (tests: {"--auth-token-ttl", "1"}).
  std::vector<std::string> extra_args;
};

class EtcdCluster {
 public:
  // Starts every member (reusing the ports of an earlier start in the same dir) and waits
  // until the cluster has elected a leader and answers requests. Fails naming the member and
  // showing its log when one does not start.
  static Status Start(EtcdClusterOptions options, std::unique_ptr<EtcdCluster>* out);
  ~EtcdCluster();  // stops every member

  // "127.0.0.1:port" per member, in member order.
  std::vector<std::string> client_endpoints() const;
  int size() const { return static_cast<int>(members_.size()); }
  // The member's process, to stop, kill or restart it (tests, fault injection).
  // REQUIRES: 0 <= i < size().
  ChildProcess& member(int i) { return *members_[i]->process; }
  // Every member as its supervisor sees it, for INFO: "etcd_member<i>", its state, its restarts.
  std::vector<PrivateServer> Servers() const;
  // Waits up to `timeout` until a member answers as the leader; -1 when none does.
  int Leader(std::chrono::milliseconds timeout) const;

 private:
  struct Member {
    int client_port = 0;
    int peer_port = 0;
    std::unique_ptr<ChildProcess> process;
  };
  EtcdCluster() = default;
  Status LoadOrCreateLayout();
  std::vector<std::string> MemberArgs(int i) const;
  std::string LogTail(int i) const;
  std::string ClientUrl(int i) const;

  EtcdClusterOptions options_;
  // The PEM texts of the probes' TLS files (options_.tls), read at Start.
  std::string probe_ca_, probe_cert_, probe_key_;
  std::string token_;
  bool fresh_ = false;
  std::vector<std::unique_ptr<Member>> members_;
};

// Whether something accepts TCP connections on 127.0.0.1:port.
bool LoopbackPortAccepts(int port);

}  // namespace kvlab::backends
