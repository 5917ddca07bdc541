#include "backends/etcd_store.h"

#include <grpcpp/grpcpp.h>

#include <algorithm>
#include <atomic>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <functional>
#include <map>
#include <mutex>
#include <random>
#include <thread>

#include "backends/etcd_cluster.h"
#include "backends/etcd_security.h"
#include "backends/store_files.h"
#include "etcd/etcdserver/etcdserverpb/rpc.grpc.pb.h"

namespace kvlab::backends {
namespace fs = std::filesystem;

namespace {

using etcdserverpb::DeleteRangeRequest;
using etcdserverpb::DeleteRangeResponse;
using etcdserverpb::PutRequest;
using etcdserverpb::PutResponse;
using etcdserverpb::RangeRequest;
using etcdserverpb::RangeResponse;
using etcdserverpb::TxnRequest;
using etcdserverpb::TxnResponse;

constexpr char kPrefixFile[] = "etcd-prefix";
// One attempt's deadline; a request is retried (on the next endpoint) until etcd_timeout_ms.
// A follower that lost its leader holds a request until etcd's own timeout (seconds): a shorter
// attempt moves on to another member sooner.
constexpr auto kAttemptTimeout = std::chrono::milliseconds(1000);
constexpr auto kRetryPause = std::chrono::milliseconds(50);
// Room a request's framing takes besides its keys and values (a Txn's per-op overhead is
// counted separately, kOpOverheadBytes each).
constexpr uint64_t kRequestOverheadBytes = 256;
constexpr uint64_t kOpOverheadBytes = 16;

// The first key after every key that starts with `prefix`: its last byte below 0xff, plus one.
// "" when there is none (a prefix of 0xff bytes only): etcd's "\0" range end means "no end".
std::string PrefixEnd(std::string prefix) {
  while (!prefix.empty()) {
    if (static_cast<unsigned char>(prefix.back()) != 0xff) {
      prefix.back() = static_cast<char>(static_cast<unsigned char>(prefix.back()) + 1);
      return prefix;
    }
    prefix.pop_back();
  }
  return std::string(1, '\0');
}

// The store's key prefix, read from `dir`, or chosen and written there on the first open.
Status LoadOrCreatePrefix(const std::string& dir, std::string* prefix) {
  const fs::path path = fs::path(dir) / kPrefixFile;
  std::ifstream in(path);
  if (in) {
    if (!std::getline(in, *prefix) || !prefix->starts_with("kvlab/") || !prefix->ends_with("/")) {
      return Status::InvalidArgument("etcd: " + path.string() + ": not a key prefix");
    }
    return Status::OK();
  }
  std::random_device rd;
  static constexpr char kHex[] = "0123456789abcdef";
  *prefix = "kvlab/";
  for (int i = 0; i < 16; ++i) *prefix += kHex[rd() % 16];
  *prefix += "/";
  std::error_code ec;
  fs::create_directories(dir, ec);
  std::ofstream out(path);
  out << *prefix << "\n";
  out.flush();
  if (!out) return Status::IOError("etcd: cannot write " + path.string());
  return Status::OK();
}

bool Retryable(const grpc::Status& s) {
  return s.error_code() == grpc::StatusCode::UNAVAILABLE ||
         s.error_code() == grpc::StatusCode::DEADLINE_EXCEEDED;
}

// A batch reduced to its net effect, which etcd accepts in one Txn: point writes on distinct
// keys (value or delete) and disjoint range deletes that hold none of the put keys.
struct NetBatch {
  std::map<std::string, std::optional<std::string>> points;
  std::vector<std::pair<std::string, std::string>> ranges;
  size_t ops() const { return points.size() + ranges.size(); }
};

NetBatch Reduce(const WriteBatch& batch) {
  NetBatch net;
  std::vector<std::pair<std::string, std::string>> ranges;
  for (const auto& r : batch.records()) {
    switch (r.op) {
      case WriteBatch::Op::kPut:
        net.points[r.key] = r.value;
        break;
      case WriteBatch::Op::kDelete:
      case WriteBatch::Op::kSingleDelete:
        net.points[r.key] = std::nullopt;
        break;
      case WriteBatch::Op::kDeleteRange:
        if (r.key >= r.value) break;  // empty or inverted: deletes nothing
        net.points.erase(net.points.lower_bound(r.key), net.points.lower_bound(r.value));
        ranges.emplace_back(r.key, r.value);
        break;
    }
  }
  // Merge the ranges into disjoint ones, in key order.
  std::sort(ranges.begin(), ranges.end());
  std::vector<std::pair<std::string, std::string>> merged;
  for (auto& r : ranges) {
    if (!merged.empty() && r.first <= merged.back().second) {
      merged.back().second = std::max(merged.back().second, r.second);
    } else {
      merged.push_back(std::move(r));
    }
  }
  // Points inside a range: a delete is the range's already; a put splits the range around it.
  for (auto& [begin, end] : merged) {
    std::string from = begin;
    for (auto it = net.points.lower_bound(begin); it != net.points.end() && it->first < end;) {
      if (!it->second.has_value()) {
        it = net.points.erase(it);
        continue;
      }
      if (from < it->first) net.ranges.emplace_back(from, it->first);
      from = it->first + '\0';
      ++it;
    }
    if (from < end) net.ranges.emplace_back(from, end);
  }
  return net;
}

class EtcdStore;

class EtcdIterator final : public Iterator {
 public:
  EtcdIterator(EtcdStore* store, const IteratorOptions& options);

  bool Valid() const override { return status_.ok() && pos_ < rows_.size(); }
  void Seek(std::string_view target) override;
  void SeekForPrev(std::string_view target) override;
  void SeekToFirst() override;
  void SeekToLast() override;
  void Next() override;
  void Prev() override;
  std::string_view key() const override { return rows_[pos_].first; }
  std::string_view value() const override { return rows_[pos_].second; }
  Status status() const override { return status_; }

 private:
  // Reads the page of rows from `from` (a full etcd key, inclusive) up to the upper bound.
  void FetchForward(std::string from);
  // Reads the page of rows below `to` (a full etcd key, exclusive) down to the lower bound.
  void FetchReverse(std::string to);
  // Reads the page of rows in [begin, end) nearest to begin (forward) or to end (reverse).
  void Fetch(bool forward, const std::string& begin, const std::string& end);

  EtcdStore* store_;
  std::string lo_, hi_;                                    // full etcd keys: [lo_, hi_)
  std::vector<std::pair<std::string, std::string>> rows_;  // keys without the prefix
  size_t pos_ = 0;
  bool forward_ = true;
  bool more_ = false;  // rows lie beyond this page in its direction
  int64_t revision_ = 0;
  Status status_;
};

class EtcdStore final : public KvStore {
 public:
  EtcdStore(std::unique_ptr<EtcdCluster> cluster, std::vector<std::string> endpoints,
            std::string prefix, const EtcdOptions& options,
            const std::shared_ptr<grpc::ChannelCredentials>& credentials)
      : cluster_(std::move(cluster)),
        endpoints_(std::move(endpoints)),
        prefix_(std::move(prefix)),
        prefix_end_(PrefixEnd(prefix_)),
        timeout_(options.timeout_ms),
        max_txn_ops_(options.max_txn_ops != 0 ? options.max_txn_ops
                     : cluster_ != nullptr    ? kPrivateMaxTxnOps
                                              : kEtcdDefaultMaxTxnOps),
        tls_(!options.ca_file.empty()),
        client_cert_(!options.cert_file.empty()),
        user_(options.user),
        password_(options.password) {
    grpc::ChannelArguments args;
    args.SetMaxReceiveMessageSize(-1);
    args.SetMaxSendMessageSize(-1);
    // Reconnect soon after a member comes back, rather than after gRPC's default backoff.
    args.SetInt(GRPC_ARG_MAX_RECONNECT_BACKOFF_MS, 500);
    args.SetInt(GRPC_ARG_INITIAL_RECONNECT_BACKOFF_MS, 100);
    for (const std::string& e : endpoints_) {
      auto channel = grpc::CreateCustomChannel(e, credentials, args);
      stubs_.push_back(etcdserverpb::KV::NewStub(channel));
      auth_stubs_.push_back(etcdserverpb::Auth::NewStub(channel));
    }
  }
  ~EtcdStore() override {
    stubs_.clear();  // the channels first,
    auth_stubs_.clear();
    cluster_.reset();  // then the members
  }

  std::string name() const override { return "etcd"; }
  Capabilities capabilities() const override {
    Capabilities c;
    c.reverse_scan = true;         // Range sorted by key, descending
    c.native_delete_range = true;  // one DeleteRange request; etcd visits the keys server-side
    c.persistent = true;
    c.crash_safe = true;  // acknowledged once a quorum has it in its fsynced WAL
    c.max_key_bytes = kEtcdMaxRequestBytes - kRequestOverheadBytes - prefix_.size();
    return c;
  }

  Status Get(std::string_view key, std::string* value) override {
    RangeRequest req;
    req.set_key(Full(key));
    RangeResponse resp;
    KVLAB_RETURN_IF_ERROR(Call("Range", &etcdserverpb::KV::Stub::Range, req, &resp));
    if (resp.kvs_size() == 0) return Status::NotFound("");
    *value = resp.kvs(0).value();
    return Status::OK();
  }

  Status MultiGet(const std::vector<std::string_view>& keys,
                  std::vector<std::optional<std::string>>* values) override {
    values->assign(keys.size(), std::nullopt);
    for (size_t first = 0; first < keys.size(); first += max_txn_ops_) {
      const size_t n = std::min<size_t>(max_txn_ops_, keys.size() - first);
      TxnRequest req;
      for (size_t i = first; i < first + n; ++i) {
        req.add_success()->mutable_request_range()->set_key(Full(keys[i]));
      }
      TxnResponse resp;
      KVLAB_RETURN_IF_ERROR(Call("Txn", &etcdserverpb::KV::Stub::Txn, req, &resp));
      if (resp.responses_size() != static_cast<int>(n)) {
        return Status::IOError("etcd: a Txn of " + std::to_string(n) + " Ranges answered " +
                               std::to_string(resp.responses_size()));
      }
      for (size_t i = 0; i < n; ++i) {
        const RangeResponse& r = resp.responses(static_cast<int>(i)).response_range();
        if (r.kvs_size() > 0) (*values)[first + i] = r.kvs(0).value();
      }
    }
    return Status::OK();
  }

  Status Put(std::string_view key, std::string_view value) override {
    KVLAB_RETURN_IF_ERROR(ValidateKey("etcd", key, capabilities().max_key_bytes));
    KVLAB_RETURN_IF_ERROR(CheckSize("a Put", prefix_.size() + key.size() + value.size()));
    PutRequest req;
    req.set_key(Full(key));
    req.set_value(std::string(value));
    PutResponse resp;
    return Call("Put", &etcdserverpb::KV::Stub::Put, req, &resp);
  }

  Status Delete(std::string_view key) override {
    KVLAB_RETURN_IF_ERROR(ValidateKey("etcd", key, capabilities().max_key_bytes));
    DeleteRangeRequest req;
    req.set_key(Full(key));
    DeleteRangeResponse resp;
    return Call("DeleteRange", &etcdserverpb::KV::Stub::DeleteRange, req, &resp);
  }

  Status DeleteRange(std::string_view begin, std::string_view end) override {
    if (begin >= end) return Status::OK();
    DeleteRangeRequest req;
    req.set_key(Full(begin));
    req.set_range_end(Full(end));
    DeleteRangeResponse resp;
    return Call("DeleteRange", &etcdserverpb::KV::Stub::DeleteRange, req, &resp);
  }

  Status Write(const WriteBatch& batch) override {
    KVLAB_RETURN_IF_ERROR(ValidateBatch("etcd", batch, capabilities().max_key_bytes));
    const NetBatch net = Reduce(batch);
    if (net.ops() == 0) return Status::OK();
    if (net.ops() > max_txn_ops_) {
      return Status::InvalidArgument(
          "etcd: a batch of " + std::to_string(net.ops()) + " operations (" +
          std::to_string(batch.size()) + " records) exceeds the cluster's --max-txn-ops of " +
          std::to_string(max_txn_ops_) + ": etcd applies a batch as one Txn");
    }
    TxnRequest req;
    uint64_t bytes = 0;
    for (const auto& [key, value] : net.points) {
      bytes += prefix_.size() + key.size() + kOpOverheadBytes;
      if (value.has_value()) {
        PutRequest* put = req.add_success()->mutable_request_put();
        put->set_key(Full(key));
        put->set_value(*value);
        bytes += value->size();
      } else {
        req.add_success()->mutable_request_delete_range()->set_key(Full(key));
      }
    }
    for (const auto& [begin, end] : net.ranges) {
      DeleteRangeRequest* del = req.add_success()->mutable_request_delete_range();
      del->set_key(Full(begin));
      del->set_range_end(Full(end));
      bytes += del->key().size() + del->range_end().size() + kOpOverheadBytes;
    }
    KVLAB_RETURN_IF_ERROR(
        CheckSize("a batch of " + std::to_string(net.ops()) + " operations", bytes));
    TxnResponse resp;
    return Call("Txn", &etcdserverpb::KV::Stub::Txn, req, &resp);
  }

  std::unique_ptr<Iterator> NewIterator(const IteratorOptions& options) override {
    return std::make_unique<EtcdIterator>(this, options);
  }

  // etcd acknowledges a write once a quorum has it in its write-ahead log: nothing to flush.
  Status Flush() override { return Status::OK(); }

  PhysicalCounters ReadPhysicalCounters() override {
    return {{"etcd.round_trips", round_trips_.load()},
            {"etcd.bytes_sent", bytes_sent_.load()},
            {"etcd.bytes_received", bytes_received_.load()},
            {"etcd.retries", retries_.load()},
            {"etcd.wait_us", wait_us_.load()},
            {"etcd.longest_wait_us", longest_wait_us_.load()},
            {"etcd.page_range_rows", page_range_rows_.load()},
            {"etcd.reverse_rows_read", reverse_rows_read_.load()},
            {"etcd.authentications", authentications_.load()}};
  }

  std::vector<PrivateServer> PrivateServers() const override {
    return cluster_ != nullptr ? cluster_->Servers() : std::vector<PrivateServer>();
  }

  // Called for every iterator page with the rows in the range it asked (RangeResponse.count):
  // etcd 3.4 walks all of them in its in-memory index to count them, and for a descending page
  // it also reads every one from its backend and sorts them before it applies the limit
  // (etcdserver's rangeLimit: "fetch everything; sort and truncate afterwards"). These two
  // counters show that server-side work, which the round trips and bytes do not.
  void CountPage(bool forward, int64_t rows_in_range) {
    const uint64_t rows = rows_in_range > 0 ? static_cast<uint64_t>(rows_in_range) : 0;
    page_range_rows_.fetch_add(rows);
    if (!forward) reverse_rows_read_.fetch_add(rows);
  }

  const std::string& prefix() const { return prefix_; }
  const std::string& prefix_end() const { return prefix_end_; }
  std::string Full(std::string_view key) const { return prefix_ + std::string(key); }

  // Sends one KV request, with the store's token, retrying on the next endpoint while the
  // cluster has no leader or a member does not answer, until the store's timeout.
  template <typename Req, typename Resp>
  Status Call(const char* what,
              grpc::Status (etcdserverpb::KV::Stub::*method)(grpc::ClientContext*, const Req&,
                                                             Resp*),
              const Req& req, Resp* resp) {
    return Send(what, req.ByteSizeLong(), /*with_token=*/true,
                [&](size_t endpoint, grpc::ClientContext* ctx) {
                  const grpc::Status s = (stubs_[endpoint].get()->*method)(ctx, req, resp);
                  if (s.ok()) bytes_received_.fetch_add(resp->ByteSizeLong());
                  return s;
                });
  }

  // Gets a token for the store's user (Auth.Authenticate), which every request then carries.
  // REQUIRES: a user (EtcdOptions::user).
  Status Authenticate();

 private:
  Status CheckSize(const std::string& what, uint64_t bytes) const {
    if (bytes + kRequestOverheadBytes <= kEtcdMaxRequestBytes) return Status::OK();
    return Status::InvalidArgument("etcd: " + what + " of " + std::to_string(bytes) +
                                   " bytes exceeds etcd's --max-request-bytes of " +
                                   std::to_string(kEtcdMaxRequestBytes) + " (less " +
                                   std::to_string(kRequestOverheadBytes) + " bytes of framing)");
  }
  using Rpc = std::function<grpc::Status(size_t endpoint, grpc::ClientContext* ctx)>;
  // Sends `rpc` (of `sent` bytes), retrying as Call says; with_token: with the store's token,
  // renewed once when etcd refuses it.
  Status Send(const char* what, uint64_t sent, bool with_token, const Rpc& rpc);
  // Gets a new token unless another thread did since `stale` was sent.
  Status Renew(const std::string& stale);
  std::string Token() const {
    std::lock_guard<std::mutex> lock(token_mu_);
    return token_;
  }
  std::string EndpointList() const {
    std::string list;
    for (const std::string& e : endpoints_) list += (list.empty() ? "" : ",") + e;
    return list;
  }
  void NoteWait(std::chrono::steady_clock::time_point start) {
    const uint64_t us = std::chrono::duration_cast<std::chrono::microseconds>(
                            std::chrono::steady_clock::now() - start)
                            .count();
    wait_us_.fetch_add(us);
    uint64_t longest = longest_wait_us_.load();
    while (us > longest && !longest_wait_us_.compare_exchange_weak(longest, us)) {
    }
  }

  std::unique_ptr<EtcdCluster> cluster_;  // the private cluster, or nullptr
  const std::vector<std::string> endpoints_;
  const std::string prefix_;
  const std::string prefix_end_;
  const std::chrono::milliseconds timeout_;
  const uint32_t max_txn_ops_;
  const bool tls_;
  const bool client_cert_;
  const std::string user_, password_;
  std::vector<std::unique_ptr<etcdserverpb::KV::Stub>> stubs_;
  std::vector<std::unique_ptr<etcdserverpb::Auth::Stub>> auth_stubs_;
  std::atomic<size_t> next_endpoint_{0};
  std::atomic<uint64_t> round_trips_{0}, bytes_sent_{0}, bytes_received_{0}, retries_{0},
      wait_us_{0}, longest_wait_us_{0}, page_range_rows_{0}, reverse_rows_read_{0};
  std::atomic<uint64_t> authentications_{0};
  std::mutex renew_mu_;  // one renewal of the token at a time
  mutable std::mutex token_mu_;
  std::string token_;  // guarded by token_mu_; empty: none
};

Status EtcdStore::Send(const char* what, uint64_t sent, bool with_token, const Rpc& rpc) {
  const auto start = std::chrono::steady_clock::now();
  const auto deadline = start + timeout_;
  size_t endpoint = next_endpoint_.load() % stubs_.size();
  bool renewed = false;
  size_t tls_failures = 0;  // in a row
  for (int attempt = 0;; ++attempt) {
    grpc::ClientContext ctx;
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
        deadline - std::chrono::steady_clock::now());
    ctx.set_deadline(std::chrono::system_clock::now() +
                     std::max(std::chrono::milliseconds(1), std::min(kAttemptTimeout, left)));
    const std::string token = with_token ? Token() : std::string();
    if (!token.empty()) ctx.AddMetadata("token", token);
    round_trips_.fetch_add(1);
    bytes_sent_.fetch_add(sent);
    const grpc::Status s = rpc(endpoint, &ctx);
    if (s.ok()) {
      if (attempt > 0) NoteWait(start);
      return Status::OK();
    }
    if (with_token && !user_.empty() && !renewed && IsEtcdTokenRefusal(s.error_message())) {
      // Not applied: etcd checks the token first. Once, so that a refusal of the new token
      // (say, the user was deleted) ends in an error.
      renewed = true;
      KVLAB_RETURN_IF_ERROR(Renew(token));
      continue;
    }
    const bool tls_failure = tls_ && IsEtcdTlsFailure(s.error_code(), s.error_message());
    tls_failures = tls_failure ? tls_failures + 1 : 0;
    if (tls_failure && tls_failures >= stubs_.size()) {
      // Every member failed the handshake: a certificate that waiting will not change.
      if (attempt > 0) NoteWait(start);
      return Status::Unavailable(std::string("etcd: ") + what + " failed: " +
                                 EtcdTlsFailureText(endpoints_[endpoint], s.error_message()));
    }
    if (!Retryable(s)) {
      return Status::IOError(std::string("etcd: ") + what + " failed: " + s.error_message() +
                             EtcdRefusalHint(s.error_code(), s.error_message(), !user_.empty()));
    }
    // This member cannot serve now: the next request starts at the next one.
    endpoint = (endpoint + 1) % stubs_.size();
    next_endpoint_.store(endpoint);
    if (std::chrono::steady_clock::now() + kRetryPause >= deadline) {
      NoteWait(start);
      return Status::Unavailable(std::string("etcd: ") + what + " failed: no member of " +
                                 EndpointList() + " served it within " +
                                 std::to_string(timeout_.count()) +
                                 " ms (is a quorum of the cluster up?" +
                                 EtcdUnavailableHint(tls_, client_cert_, s.error_message()) +
                                 " last error: " + s.error_message() + ")");
    }
    retries_.fetch_add(1);
    if (!tls_failure) std::this_thread::sleep_for(kRetryPause);
  }
}

Status EtcdStore::Authenticate() {
  etcdserverpb::AuthenticateRequest req;
  req.set_name(user_);
  req.set_password(password_);
  etcdserverpb::AuthenticateResponse resp;
  grpc::Status last;
  const Status s = Send("Authenticate", req.ByteSizeLong(), /*with_token=*/false,
                        [&](size_t endpoint, grpc::ClientContext* ctx) {
                          last = auth_stubs_[endpoint]->Authenticate(ctx, req, &resp);
                          if (last.ok()) bytes_received_.fetch_add(resp.ByteSizeLong());
                          return last;
                        });
  if (!s.ok()) {
    if (last.error_code() == grpc::StatusCode::FAILED_PRECONDITION &&
        last.error_message().find("authentication is not enabled") != std::string::npos) {
      // As etcd's own client does: a cluster without authentication takes requests without a
      // token (clients get their credentials before an operator enables it).
      std::lock_guard<std::mutex> lock(token_mu_);
      token_.clear();
      return Status::OK();
    }
    if (Retryable(last)) return s;  // unreachable, or TLS: Send's message says which
    return Status::InvalidArgument("etcd: authentication failed for user '" + user_ +
                                   "': " + last.error_message());
  }
  authentications_.fetch_add(1);
  std::lock_guard<std::mutex> lock(token_mu_);
  token_ = resp.token();
  return Status::OK();
}

Status EtcdStore::Renew(const std::string& stale) {
  std::lock_guard<std::mutex> lock(renew_mu_);
  if (Token() != stale) return Status::OK();  // another thread has renewed it
  return Authenticate();
}

EtcdIterator::EtcdIterator(EtcdStore* store, const IteratorOptions& options)
    : store_(store),
      lo_(store->Full(options.lower_bound.value_or(""))),
      hi_(options.upper_bound ? store->Full(*options.upper_bound) : store->prefix_end()) {}

void EtcdIterator::FetchForward(std::string from) {
  Fetch(/*forward=*/true, std::max(from, lo_), hi_);
}

void EtcdIterator::FetchReverse(std::string to) {
  Fetch(/*forward=*/false, lo_, std::min(to, hi_));
}

void EtcdIterator::Fetch(bool forward, const std::string& begin, const std::string& end) {
  forward_ = forward;
  rows_.clear();
  pos_ = 0;
  more_ = false;
  if (begin >= end) return;
  RangeRequest req;
  req.set_key(begin);
  req.set_range_end(end);
  req.set_limit(kEtcdPageRows);
  req.set_revision(revision_);
  if (!forward) {
    req.set_sort_order(RangeRequest::DESCEND);
    req.set_sort_target(RangeRequest::KEY);
  }
  RangeResponse resp;
  status_ = store_->Call("Range", &etcdserverpb::KV::Stub::Range, req, &resp);
  if (!status_.ok()) return;
  if (revision_ == 0) revision_ = resp.header().revision();
  store_->CountPage(forward, resp.count());
  for (const auto& kv : resp.kvs()) {
    rows_.emplace_back(kv.key().substr(store_->prefix().size()), kv.value());
  }
  more_ = resp.more();
}

void EtcdIterator::Seek(std::string_view target) {
  revision_ = 0;  // a new seek reads the latest data
  FetchForward(store_->Full(target));
}

void EtcdIterator::SeekToFirst() {
  revision_ = 0;
  FetchForward(lo_);
}

void EtcdIterator::SeekForPrev(std::string_view target) {
  revision_ = 0;
  FetchReverse(store_->Full(target) + '\0');  // the last key <= target
}

void EtcdIterator::SeekToLast() {
  revision_ = 0;
  FetchReverse(hi_);
}

void EtcdIterator::Next() {
  const std::string after = store_->Full(rows_[pos_].first) + '\0';
  if (forward_ && pos_ + 1 < rows_.size()) {
    ++pos_;
  } else if (forward_ && !more_) {
    rows_.clear();
    pos_ = 0;
  } else {
    FetchForward(after);  // the next page, or a change of direction
  }
}

void EtcdIterator::Prev() {
  const std::string before = store_->Full(rows_[pos_].first);
  if (!forward_ && pos_ + 1 < rows_.size()) {
    ++pos_;  // reverse pages hold their rows in descending order
  } else if (!forward_ && !more_) {
    rows_.clear();
    pos_ = 0;
  } else {
    FetchReverse(before);
  }
}

}  // namespace

std::vector<std::string> EtcdFilesIn(const std::string& dir) {
  const fs::path d(dir);
  std::vector<std::string> found;
  if (FileHasBytesAt(d / kPrefixFile, 0, "kvlab/")) found.push_back(kPrefixFile);
  if (FileHasBytesAt(d / "etcd" / "cluster", 0, "kvlab-etcd-cluster ")) {
    found.push_back("etcd/cluster");
  }
  return found;
}

Status OpenEtcdStore(const StoreOptions& options, const EtcdOptions& etcd,
                     std::unique_ptr<KvStore>* out) {
  // Every option is checked, and every file read, before anything is created or connected.
  EtcdTlsFiles tls;
  KVLAB_RETURN_IF_ERROR(LoadEtcdSecurity(etcd, &tls));
  std::vector<std::string> endpoints;
  KVLAB_RETURN_IF_ERROR(ParseEtcdEndpoints(etcd.endpoints, tls.on(), &endpoints));
  std::shared_ptr<grpc::ChannelCredentials> credentials = grpc::InsecureChannelCredentials();
  if (tls.on()) {
    grpc::SslCredentialsOptions ssl;
    ssl.pem_root_certs = tls.ca;
    ssl.pem_cert_chain = tls.cert;
    ssl.pem_private_key = tls.key;
    credentials = grpc::SslCredentials(ssl);
  }
  std::string prefix;
  KVLAB_RETURN_IF_ERROR(LoadOrCreatePrefix(options.dir, &prefix));
  std::unique_ptr<EtcdCluster> cluster;
  if (endpoints.empty()) {
    EtcdClusterOptions co;
    co.dir = (fs::path(options.dir) / "etcd").string();
    if (etcd.max_txn_ops != 0) co.max_txn_ops = static_cast<int>(etcd.max_txn_ops);
    // Supervised as the Redis tier's private servers are: a member that dies is restarted, so a
    // cluster that lost its quorum comes back without a hand.
    co.supervise = true;
    co.on_event = [log = etcd.log](const std::string& text) {
      const std::string line = "the private " + text;
      if (log) {
        log(line);
      } else {
        std::fprintf(stderr, "kvlab: %s\n", line.c_str());
      }
    };
    KVLAB_RETURN_IF_ERROR(EtcdCluster::Start(co, &cluster));
    endpoints = cluster->client_endpoints();
  }
  auto store = std::make_unique<EtcdStore>(std::move(cluster), std::move(endpoints),
                                           std::move(prefix), etcd, credentials);
  if (!etcd.user.empty()) KVLAB_RETURN_IF_ERROR(store->Authenticate());
  // A first request, so that a cluster that cannot be reached fails the open, not a command.
  RangeRequest req;
  req.set_key(store->prefix());
  req.set_range_end(store->prefix_end());
  req.set_count_only(true);
  RangeResponse resp;
  KVLAB_RETURN_IF_ERROR(store->Call("Range", &etcdserverpb::KV::Stub::Range, req, &resp));
  *out = std::move(store);
  return Status::OK();
}

}  // namespace kvlab::backends
