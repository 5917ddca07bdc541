// Crash atomicity: a child process applies numbered batches until it is killed with SIGKILL.
// After a reopen, every batch is there whole or not at all, and the batches that survived are a
// prefix of those written (a backend must not keep batch n+1 and lose batch n).
//
// The child is this binary re-executed with --crash-writer, not a fork of the test process: the
// parent has storage engines open, with their own threads, which a fork would copy half-way.
//
// Built twice: kv_crash_test runs it on the embedded backends, and kv_crash_etcd_test
// (KVLAB_CRASH_ETCD) on etcd, where the client dies mid-stream and the cluster (one the test
// starts, given to the writer by its endpoints) stays up: what survives is what etcd acknowledged,
// found again under the store's key prefix, kept in the store directory.
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <cstring>

#include "backends/etcd_cluster.h"
#include "testing/kv_test_util.h"

namespace kvlab::backends {
namespace {

constexpr int kKeysPerBatch = 10;

std::string BatchKey(int batch, int j) {
  char buf[32];
  std::snprintf(buf, sizeof(buf), "b%08d/%02d", batch, j);
  return buf;
}

// The store of `backend` in `dir`; for etcd, in the cluster at `etcd_endpoints` (comma-separated).
StoreSpec CrashSpec(const std::string& backend, const std::string& dir,
                    const std::string& etcd_endpoints) {
  StoreSpec spec;
  spec.backend = backend;
  spec.options.dir = dir;
  for (size_t start = 0; start < etcd_endpoints.size();) {
    size_t end = etcd_endpoints.find(',', start);
    if (end == std::string::npos) end = etcd_endpoints.size();
    spec.etcd.endpoints.push_back(etcd_endpoints.substr(start, end - start));
    start = end + 1;
  }
  return spec;
}

// The child: writes batches forever and reports progress on stdout (one byte per 50 batches).
int RunCrashWriter(const std::string& backend, const std::string& dir,
                   const std::string& etcd_endpoints) {
  const StoreSpec spec = CrashSpec(backend, dir, etcd_endpoints);
  std::unique_ptr<OpenedStore> opened;
  Status s = OpenStore(spec, &opened);
  if (!s.ok()) {
    std::fprintf(stderr, "crash writer: %s\n", s.ToString().c_str());
    return 2;
  }
  for (int batch = 0;; ++batch) {
    WriteBatch b;
    for (int j = 0; j < kKeysPerBatch; ++j) {
      b.Put(BatchKey(batch, j), std::string(100 + j, static_cast<char>('a' + batch % 26)));
    }
    b.Put("last", std::to_string(batch));
    if (!opened->store()->Write(b).ok()) return 3;
    if (batch % 50 == 49 && write(STDOUT_FILENO, "+", 1) != 1) return 4;
  }
}

// The path of this binary, for re-execution.
std::string SelfPath() {
  char resolved[4096];
  ssize_t n = readlink("/proc/self/exe", resolved, sizeof(resolved) - 1);
  return n > 0 ? std::string(resolved, static_cast<size_t>(n)) : "/proc/self/exe";
}

class CrashTest : public ::testing::TestWithParam<std::string> {
 protected:
#ifdef KVLAB_CRASH_ETCD
  static void SetUpTestSuite() {
    cluster_dir_ = std::make_unique<testing::ScratchDir>();
    EtcdClusterOptions options;
    options.dir = cluster_dir_->Sub("cluster");
    Status s = EtcdCluster::Start(options, &cluster_);
    ASSERT_TRUE(s.ok()) << s.ToString();
    for (const std::string& e : cluster_->client_endpoints()) {
      endpoints_ += (endpoints_.empty() ? "" : ",") + e;
    }
  }
  static void TearDownTestSuite() {
    cluster_.reset();
    cluster_dir_.reset();
  }
  static inline std::unique_ptr<testing::ScratchDir> cluster_dir_;
  static inline std::unique_ptr<EtcdCluster> cluster_;
#endif
  static inline std::string endpoints_;  // the etcd cluster's, "" for the embedded backends
};

TEST_P(CrashTest, BatchesSurviveSigkillWholeOrNotAtAll) {
  testing::ScratchDir scratch;
  const std::string dir = scratch.Sub("store");
  {
    const StoreSpec spec = CrashSpec(GetParam(), dir, endpoints_);
    std::unique_ptr<OpenedStore> probe;
    ASSERT_TRUE(OpenStore(spec, &probe).ok());
    if (!probe->store()->capabilities().crash_safe) GTEST_SKIP() << "not crash-safe by design";
  }
  int out[2];
  ASSERT_EQ(pipe(out), 0);
  const std::string self = SelfPath();
  pid_t child = fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    dup2(out[1], STDOUT_FILENO);
    close(out[0]);
    execl(self.c_str(), self.c_str(), "--crash-writer", GetParam().c_str(), dir.c_str(),
          endpoints_.c_str(), static_cast<char*>(nullptr));
    _exit(127);
  }
  close(out[1]);
  // Let the child commit a few hundred batches, then kill it mid-stream.
  char progress[8];
  for (int seen = 0; seen < 8;) {
    ssize_t n = read(out[0], progress, sizeof(progress));
    ASSERT_GT(n, 0) << "the writer stopped before it was killed";
    seen += static_cast<int>(n);
  }
  ASSERT_EQ(kill(child, SIGKILL), 0);
  int wstatus = 0;
  ASSERT_EQ(waitpid(child, &wstatus, 0), child);
  ASSERT_TRUE(WIFSIGNALED(wstatus));
  close(out[0]);

  const StoreSpec spec = CrashSpec(GetParam(), dir, endpoints_);
  std::unique_ptr<OpenedStore> opened;
  Status s = OpenStore(spec, &opened);
  ASSERT_TRUE(s.ok()) << s.ToString();
  KvStore* store = opened->store();
  std::string last;
  ASSERT_TRUE(store->Get("last", &last).ok()) << "no batch survived";
  const int last_batch = std::stoi(last);
  EXPECT_GE(last_batch, 399) << "batches acknowledged before the kill were lost";
  for (int batch = 0; batch <= last_batch + 1; ++batch) {
    int present = 0;
    for (int j = 0; j < kKeysPerBatch; ++j) {
      std::string v;
      Status g = store->Get(BatchKey(batch, j), &v);
      ASSERT_TRUE(g.ok() || g.IsNotFound()) << g.ToString();
      if (g.ok()) {
        ++present;
        ASSERT_EQ(v, std::string(100 + j, static_cast<char>('a' + batch % 26)));
      }
    }
    if (batch <= last_batch) {
      ASSERT_EQ(present, kKeysPerBatch) << "batch " << batch << " is torn or missing";
    } else {
      ASSERT_EQ(present, 0) << "batch " << batch << " is present but 'last' says " << last_batch;
    }
  }
}

#ifdef KVLAB_CRASH_ETCD
INSTANTIATE_TEST_SUITE_P(Etcd, CrashTest, ::testing::Values("etcd"),
                         [](const auto& info) { return info.param; });
#else
INSTANTIATE_TEST_SUITE_P(AllBackends, CrashTest, ::testing::ValuesIn(EmbeddedBackendNames()),
                         [](const auto& info) { return info.param; });
#endif

}  // namespace
}  // namespace kvlab::backends

int main(int argc, char** argv) {
  if (argc == 5 && std::strcmp(argv[1], "--crash-writer") == 0) {
    return kvlab::backends::RunCrashWriter(argv[2], argv[3], argv[4]);
  }
  ::testing::InitGoogleTest(&argc, argv);
  return RUN_ALL_TESTS();
}
