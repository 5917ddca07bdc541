// Faults on a private 3-member etcd cluster under a running workload: one member killed, the
// leader killed, two of three killed, all three killed; and the etcd store's own private cluster,
// whose members are supervised, with members killed from outside. Each test starts its own
// members on free loopback ports and stops them; the workload writes numbered batches
// (kKeysPerBatch keys each), so that a torn batch, or a lost acknowledged one, shows in the
// final scan.
#include <gtest/gtest.h>
#include <signal.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>
#include <mutex>
#include <thread>
#include <tuple>
#include <vector>

#include "backends/etcd_cluster.h"
#include "backends/etcd_store.h"
#include "testing/kv_test_util.h"

namespace kvlab::backends {
namespace {

using testing::ScratchDir;

constexpr int kKeysPerBatch = 5;

std::string BatchKey(int batch, int j) {
  char buf[32];
  std::snprintf(buf, sizeof(buf), "b%06d/%d", batch, j);
  return buf;
}

uint64_t Counter(KvStore* store, const std::string& name) {
  for (const auto& [n, v] : store->ReadPhysicalCounters()) {
    if (n == name) return v;
  }
  return 0;
}

class EtcdFaultTest : public ::testing::Test {
 protected:
  void SetUp() override {
    EtcdClusterOptions options;
    options.dir = scratch_.Sub("cluster");
    Status s = EtcdCluster::Start(options, &cluster_);
    ASSERT_TRUE(s.ok()) << s.ToString();
    // Longer than an election on loopback (about 1 s).
    Reopen(std::chrono::milliseconds(3000));
  }

  // (Re)opens the store, whose requests retry for `timeout`.
  void Reopen(std::chrono::milliseconds timeout) {
    store_.reset();
    EtcdOptions etcd;
    etcd.endpoints = cluster_->client_endpoints();
    etcd.timeout_ms = static_cast<uint32_t>(timeout.count());
    StoreOptions so;
    so.dir = scratch_.Sub("store");
    Status s = OpenEtcdStore(so, etcd, &store_);
    ASSERT_TRUE(s.ok()) << s.ToString();
  }

  // Writes batch number `next_` and returns its status; an acknowledged batch is recorded.
  Status WriteNext() {
    WriteBatch batch;
    for (int j = 0; j < kKeysPerBatch; ++j) batch.Put(BatchKey(next_, j), std::to_string(next_));
    Status s = store_->Write(batch);
    if (s.ok()) acked_.push_back(next_);
    ++next_;
    return s;
  }

  // Every batch is whole or absent, and every acknowledged one is there.
  void ExpectNoTornOrLostBatch() {
    std::map<int, int> keys_of;  // batch -> keys found
    auto it = store_->NewIterator();
    for (it->SeekToFirst(); it->Valid(); it->Next()) {
      ++keys_of[std::stoi(std::string(it->key().substr(1, 6)))];
    }
    ASSERT_TRUE(it->status().ok()) << it->status().ToString();
    for (const auto& [batch, n] : keys_of) EXPECT_EQ(n, kKeysPerBatch) << "batch " << batch;
    for (int batch : acked_) EXPECT_EQ(keys_of.count(batch), 1u) << "acknowledged batch " << batch;
  }

  ScratchDir scratch_;
  std::unique_ptr<EtcdCluster> cluster_;
  std::unique_ptr<KvStore> store_;
  std::vector<int> acked_;
  int next_ = 0;
};

TEST_F(EtcdFaultTest, KillingOneFollowerLosesNoWriteAndCommandsGoOn) {
  const int leader = cluster_->Leader(std::chrono::seconds(5));
  ASSERT_GE(leader, 0);
  const int victim = (leader + 1) % cluster_->size();
  for (int i = 0; i < 20; ++i) ASSERT_TRUE(WriteNext().ok());
  cluster_->member(victim).Kill();
  for (int i = 0; i < 20; ++i) {
    const Status s = WriteNext();
    ASSERT_TRUE(s.ok()) << "batch " << next_ - 1 << ": " << s.ToString();
  }
  ASSERT_TRUE(cluster_->member(victim).Start().ok());
  for (int i = 0; i < 20; ++i) {
    const Status s = WriteNext();
    ASSERT_TRUE(s.ok()) << "batch " << next_ - 1 << ": " << s.ToString();
  }
  ExpectNoTornOrLostBatch();
}

TEST_F(EtcdFaultTest, KillingTheLeaderPausesCommandsUntilTheElection) {
  const int leader = cluster_->Leader(std::chrono::seconds(5));
  ASSERT_GE(leader, 0);
  for (int i = 0; i < 20; ++i) ASSERT_TRUE(WriteNext().ok());
  cluster_->member(leader).Kill();
  for (int i = 0; i < 20; ++i) {
    const Status s = WriteNext();
    ASSERT_TRUE(s.ok()) << "batch " << next_ - 1 << ": " << s.ToString();
  }
  const int next_leader = cluster_->Leader(std::chrono::seconds(5));
  EXPECT_GE(next_leader, 0);
  EXPECT_NE(next_leader, leader);
  // The pause is reported in the store's counters (not asserted: whether a request met the
  // election depends on timing).
  std::printf("leader %d killed: %llu retries, longest pause %llu us, new leader %d\n", leader,
              static_cast<unsigned long long>(Counter(store_.get(), "etcd.retries")),
              static_cast<unsigned long long>(Counter(store_.get(), "etcd.longest_wait_us")),
              next_leader);
  ASSERT_TRUE(cluster_->member(leader).Start().ok());
  ExpectNoTornOrLostBatch();
}

TEST_F(EtcdFaultTest, WithoutQuorumCommandsFailClearlyAndRecover) {
  Reopen(std::chrono::milliseconds(800));  // fail soon once there is no quorum
  for (int i = 0; i < 10; ++i) ASSERT_TRUE(WriteNext().ok());
  // A writer keeps going while two members die under it.
  std::atomic<bool> stop{false};
  std::atomic<int> failures{0};
  std::string first_error;
  std::thread writer([&] {
    while (!stop.load()) {
      Status s = WriteNext();
      if (!s.ok() && failures.fetch_add(1) == 0) first_error = s.ToString();
    }
  });
  std::this_thread::sleep_for(std::chrono::milliseconds(100));
  cluster_->member(1).Kill();
  cluster_->member(2).Kill();
  while (failures.load() == 0) std::this_thread::sleep_for(std::chrono::milliseconds(50));
  stop = true;
  writer.join();
  EXPECT_NE(first_error.find("Unavailable: etcd: Txn failed: no member of"), std::string::npos)
      << first_error;
  EXPECT_NE(first_error.find("is a quorum of the cluster up?"), std::string::npos) << first_error;

  ASSERT_TRUE(cluster_->member(1).Start().ok());
  ASSERT_TRUE(cluster_->member(2).Start().ok());
  ASSERT_GE(cluster_->Leader(std::chrono::seconds(10)), 0);
  for (int i = 0; i < 10; ++i) ASSERT_TRUE(WriteNext().ok()) << "batch " << next_ - 1;
  ExpectNoTornOrLostBatch();
}

TEST_F(EtcdFaultTest, EveryMemberKilledMidBatchKeepsBatchesWhole) {
  // A crash of the whole cluster (SIGKILL to every member, as a power loss) while batches are
  // in flight: after the restart each batch is whole or absent, and every acknowledged one is
  // there, since etcd acknowledges only what a quorum has in its fsynced log.
  Reopen(std::chrono::milliseconds(800));
  std::atomic<bool> stop{false};
  std::atomic<int> failures{0}, written{0};
  std::thread writer([&] {
    while (!stop.load()) {
      if (WriteNext().ok()) {
        written.fetch_add(1);
      } else {
        failures.fetch_add(1);
      }
    }
  });
  while (written.load() < 30) std::this_thread::sleep_for(std::chrono::milliseconds(5));
  for (int i = 0; i < cluster_->size(); ++i) cluster_->member(i).Kill();
  while (failures.load() == 0) std::this_thread::sleep_for(std::chrono::milliseconds(20));
  stop = true;
  writer.join();
  for (int i = 0; i < cluster_->size(); ++i) ASSERT_TRUE(cluster_->member(i).Start().ok());
  ASSERT_GE(cluster_->Leader(std::chrono::seconds(10)), 0);
  for (int i = 0; i < 5; ++i) ASSERT_TRUE(WriteNext().ok()) << "batch " << next_ - 1;
  ExpectNoTornOrLostBatch();
}

// The pid of the etcd process whose data directory is `data_dir`, found as an operator would
// find it (its command line in /proc), or -1.
pid_t EtcdPidOf(const std::string& data_dir) {
  namespace fs = std::filesystem;
  std::error_code ec;
  for (fs::directory_iterator it("/proc", ec), end; !ec && it != end; it.increment(ec)) {
    const std::string name = it->path().filename().string();
    if (name.empty() || name.find_first_not_of("0123456789") != std::string::npos) continue;
    std::ifstream in(it->path() / "cmdline", std::ios::binary);
    std::vector<std::string> args;
    for (std::string arg; std::getline(in, arg, '\0');) args.push_back(arg);
    for (size_t i = 0; i + 1 < args.size(); ++i) {
      if (args[i] == "--data-dir" && args[i + 1] == data_dir) return std::stoi(name);
    }
  }
  return -1;
}

// Waits up to 30 s for `done`: a bound on liveness, not a timing check.
template <typename F>
bool WaitFor(F done) {
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(30);
  while (!done()) {
    if (std::chrono::steady_clock::now() > deadline) return false;
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  return true;
}

// The etcd store's private cluster is supervised, as the Redis tier's private servers are:
// members SIGKILLed from outside (as the OOM killer would) while a writer runs are restarted on
// their ports and data with backoff, every exit and restart is logged, PrivateServers() (INFO's
// etcd_member<i>_state and _restarts) shows them, and service resumes by itself with no
// acknowledged batch lost or torn: first one member, then two of three (no quorum until the
// supervisor brings one back; the writer's requests retry meanwhile).
TEST(EtcdSupervision, KilledMembersAreRestartedAndServiceResumesUnderAWriter) {
  ScratchDir scratch;
  std::mutex mu;
  std::vector<std::string> log;
  auto log_text = [&] {
    std::lock_guard lock(mu);
    std::string all;
    for (const std::string& line : log) all += line + "\n";
    return all;
  };
  EtcdOptions etcd;
  etcd.timeout_ms = 20000;  // far longer than a restart and an election
  etcd.log = [&](const std::string& line) {
    std::lock_guard lock(mu);
    log.push_back(line);
  };
  StoreOptions so;
  so.dir = scratch.Sub("store");
  std::unique_ptr<KvStore> store;
  Status open = OpenEtcdStore(so, etcd, &store);
  ASSERT_TRUE(open.ok()) << open.ToString();
  auto member_dir = [&](int i) { return so.dir + "/etcd/member" + std::to_string(i); };
  auto server = [&](int i) { return store->PrivateServers().at(i); };
  ASSERT_EQ(store->PrivateServers().size(), 3u);
  for (int i = 0; i < 3; ++i) {
    EXPECT_EQ(server(i).name, "etcd_member" + std::to_string(i));
    EXPECT_EQ(server(i).state, "running");
    EXPECT_EQ(server(i).restarts, 0u);
  }

  std::atomic<bool> stop{false};
  std::atomic<int> acked{0}, failed{0};
  // Written by the writer alone until it is joined.
  std::vector<int> acked_batches;
  std::string first_error;
  std::chrono::steady_clock::duration longest_write{};  // the outage as the writer saw it
  std::thread writer([&] {
    for (int next = 0; !stop.load(); ++next) {
      WriteBatch batch;
      for (int j = 0; j < kKeysPerBatch; ++j) batch.Put(BatchKey(next, j), std::to_string(next));
      const auto start = std::chrono::steady_clock::now();
      const Status s = store->Write(batch);
      longest_write = std::max(longest_write, std::chrono::steady_clock::now() - start);
      if (s.ok()) {
        acked_batches.push_back(next);
        acked.fetch_add(1);
      } else if (failed.fetch_add(1) == 0) {
        first_error = s.ToString();
      }
    }
  });
  // Waits until the writer has `more` batches acknowledged beyond now.
  auto writes_go_on = [&](int more) {
    const int target = acked.load() + more;
    return WaitFor([&] { return acked.load() >= target; });
  };
  auto restarted = [&](int i, uint64_t restarts) {
    return WaitFor([&] {
      const PrivateServer s = server(i);
      return s.restarts == restarts && s.state == "running";
    });
  };
  ASSERT_TRUE(writes_go_on(20));

  // One member.
  const pid_t first = EtcdPidOf(member_dir(1));
  ASSERT_GT(first, 0);
  ASSERT_EQ(::kill(first, SIGKILL), 0);
  ASSERT_TRUE(restarted(1, 1)) << log_text();
  EXPECT_NE(EtcdPidOf(member_dir(1)), first);
  ASSERT_TRUE(writes_go_on(10)) << log_text();

  // Two of three: no quorum until one is back.
  const pid_t second = EtcdPidOf(member_dir(1)), third = EtcdPidOf(member_dir(2));
  ASSERT_GT(second, 0);
  ASSERT_GT(third, 0);
  ASSERT_EQ(::kill(second, SIGKILL), 0);
  ASSERT_EQ(::kill(third, SIGKILL), 0);
  ASSERT_TRUE(restarted(1, 2)) << log_text();
  ASSERT_TRUE(restarted(2, 1)) << log_text();
  ASSERT_TRUE(writes_go_on(10)) << log_text();
  stop = true;
  writer.join();
  EXPECT_EQ(failed.load(), 0) << "the writer's requests retry until the members are back: "
                              << first_error;
  EXPECT_EQ(server(0).restarts, 0u);

  // Logged, with the backoff doubling for a member that dies again within a minute.
  const std::string text = log_text();
  for (const auto& [pid, member, delay] :
       {std::tuple{first, 1, 100}, std::tuple{second, 1, 200}, std::tuple{third, 2, 100}}) {
    EXPECT_NE(text.find("the private etcd member" + std::to_string(member) + " (pid " +
                        std::to_string(pid) + ") exited: signal 9; restarting in " +
                        std::to_string(delay) + " ms"),
              std::string::npos)
        << text;
  }
  EXPECT_NE(text.find("the private etcd member2 restarted (pid " +
                      std::to_string(EtcdPidOf(member_dir(2))) + ")"),
            std::string::npos)
      << text;

  // Every batch whole or absent, every acknowledged one there.
  std::map<int, int> keys_of;
  auto it = store->NewIterator();
  for (it->SeekToFirst(); it->Valid(); it->Next()) {
    ++keys_of[std::stoi(std::string(it->key().substr(1, 6)))];
  }
  ASSERT_TRUE(it->status().ok()) << it->status().ToString();
  for (const auto& [batch, n] : keys_of) EXPECT_EQ(n, kKeysPerBatch) << "batch " << batch;
  for (int batch : acked_batches) {
    EXPECT_EQ(keys_of.count(batch), 1u) << "acknowledged batch " << batch;
  }
  // Reported, not asserted: how long the writer waited depends on the machine's load.
  std::printf("%d batches acknowledged through 3 member kills; longest write %lld ms\n",
              acked.load(),
              static_cast<long long>(
                  std::chrono::duration_cast<std::chrono::milliseconds>(longest_write).count()));
}

}  // namespace
}  // namespace kvlab::backends
