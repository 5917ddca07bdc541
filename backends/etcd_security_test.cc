// The etcd backend against a cluster secured as production clusters are: TLS with a private CA
// and required client certificates (--client-cert-auth), and etcd's user/password
// authentication with tokens that expire. One member, started by the suite with a throwaway CA,
// server certificate (SAN 127.0.0.1) and client certificate made with the openssl CLI, and
// authentication enabled through etcd's Auth RPCs. Also the options' own checks, which need no
// server.
#include <grpcpp/grpcpp.h>
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <thread>

#include "backends/etcd_cluster.h"
#include "backends/etcd_store.h"
#include "etcd/etcdserver/etcdserverpb/rpc.grpc.pb.h"
#include "testing/child_run.h"
#include "testing/kv_test_util.h"

namespace kvlab::backends {
namespace {

namespace fs = std::filesystem;
using testing::ScratchDir;

constexpr char kUser[] = "alice";
constexpr char kPassword[] = "alice-secret";
constexpr char kRootPassword[] = "root-secret";

bool Has(const std::string& text, const std::string& what) {
  return text.find(what) != std::string::npos;
}

uint64_t Counter(KvStore* store, const std::string& name) {
  for (const auto& [n, v] : store->ReadPhysicalCounters()) {
    if (n == name) return v;
  }
  ADD_FAILURE() << "no counter " << name;
  return 0;
}

// Runs `script` with /bin/sh in `dir` (its output in dir/stdout and dir/stderr). Empty when it
// succeeded, else what it wrote to stderr.
std::string Shell(const std::string& dir, const std::string& script) {
  const pid_t pid = testing::Spawn({"/bin/sh", "-ec", script}, dir);
  if (testing::Wait(pid) == 0) return "";
  return testing::ReadFile(dir + "/stderr");
}

// A CA, a server certificate for 127.0.0.1 and a client certificate signed by it, and a second
// CA that signed neither. EC P-256 keys: quick to make.
std::string MakeCertificates(const std::string& dir) {
  return Shell(dir, R"(
key() { openssl genpkey -algorithm EC -pkeyopt ec_paramgen_curve:P-256 -out "$1" 2>/dev/null; }
ca() {
  key "$1.key"
  openssl req -x509 -new -key "$1.key" -out "$1.pem" -days 2 -subj "/CN=kvlab test $1"
}
signed() {  # name, CN, extensions
  key "$1.key"
  openssl req -new -key "$1.key" -out "$1.csr" -subj "/CN=$2"
  printf '%s\n' "$3" > "$1.ext"
  openssl x509 -req -in "$1.csr" -CA ca.pem -CAkey ca.key -set_serial "$4" -days 2 \
      -extfile "$1.ext" -out "$1.pem" 2>/dev/null
}
ca ca
ca other-ca
signed server etcd-member "subjectAltName=IP:127.0.0.1
extendedKeyUsage=serverAuth,clientAuth" 1
signed client kvlab-client "extendedKeyUsage=clientAuth" 2
)");
}

class EtcdSecurityTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    dir_ = std::make_unique<ScratchDir>();
    const std::string error = MakeCertificates(dir_->path());
    ASSERT_EQ(error, "") << "openssl could not make the test certificates";
    EtcdClusterOptions options;
    options.dir = dir_->Sub("cluster");
    options.members = 1;
    options.max_txn_ops = 1000;
    EtcdClusterTls tls;
    tls.ca_file = File("ca.pem");
    tls.cert_file = File("server.pem");
    tls.key_file = File("server.key");
    tls.probe_cert_file = File("client.pem");
    tls.probe_key_file = File("client.key");
    options.tls = tls;
    // Tokens expire after 1 s of idleness (etcd's default is 300 s); the least bcrypt cost
    // keeps Authenticate quick.
    options.extra_args = {"--auth-token-ttl", "1", "--bcrypt-cost", "4"};
    Status s = EtcdCluster::Start(options, &cluster_);
    ASSERT_TRUE(s.ok()) << s.ToString();
    EnableAuthentication();
  }
  static void TearDownTestSuite() {
    cluster_.reset();
    dir_.reset();
  }
  void SetUp() override { ASSERT_NE(cluster_, nullptr) << "the suite's etcd member did not start"; }

  static std::string File(const std::string& name) { return dir_->Sub(name); }

  // A root user, and kUser with readwrite permission on kvlab's keys only; then
  // authentication on (etcdctl user add, role add, role grant-permission, auth enable).
  static void EnableAuthentication() {
    grpc::SslCredentialsOptions ssl;
    ssl.pem_root_certs = testing::ReadFile(File("ca.pem"));
    ssl.pem_cert_chain = testing::ReadFile(File("client.pem"));
    ssl.pem_private_key = testing::ReadFile(File("client.key"));
    auto stub = etcdserverpb::Auth::NewStub(
        grpc::CreateChannel(cluster_->client_endpoints()[0], grpc::SslCredentials(ssl)));
    auto call = [](const char* what, auto rpc) {
      grpc::ClientContext ctx;
      ctx.set_deadline(std::chrono::system_clock::now() + std::chrono::seconds(5));
      const grpc::Status s = rpc(&ctx);
      ASSERT_TRUE(s.ok()) << what << ": " << s.error_message();
    };
    etcdserverpb::AuthUserAddRequest root;
    root.set_name("root");
    root.set_password(kRootPassword);
    etcdserverpb::AuthUserAddResponse user_added;
    call("UserAdd root", [&](auto* ctx) { return stub->UserAdd(ctx, root, &user_added); });
    etcdserverpb::AuthUserGrantRoleRequest root_role;
    root_role.set_user("root");
    root_role.set_role("root");
    etcdserverpb::AuthUserGrantRoleResponse granted;
    call("UserGrantRole root",
         [&](auto* ctx) { return stub->UserGrantRole(ctx, root_role, &granted); });
    etcdserverpb::AuthRoleAddRequest role;
    role.set_name("kvlab-rw");
    etcdserverpb::AuthRoleAddResponse role_added;
    call("RoleAdd", [&](auto* ctx) { return stub->RoleAdd(ctx, role, &role_added); });
    etcdserverpb::AuthRoleGrantPermissionRequest perm;
    perm.set_name("kvlab-rw");
    perm.mutable_perm()->set_permtype(authpb::Permission::READWRITE);
    perm.mutable_perm()->set_key("kvlab/");
    perm.mutable_perm()->set_range_end("kvlab0");  // the prefix kvlab/
    etcdserverpb::AuthRoleGrantPermissionResponse perm_granted;
    call("RoleGrantPermission",
         [&](auto* ctx) { return stub->RoleGrantPermission(ctx, perm, &perm_granted); });
    etcdserverpb::AuthUserAddRequest alice;
    alice.set_name(kUser);
    alice.set_password(kPassword);
    call("UserAdd", [&](auto* ctx) { return stub->UserAdd(ctx, alice, &user_added); });
    etcdserverpb::AuthUserGrantRoleRequest alice_role;
    alice_role.set_user(kUser);
    alice_role.set_role("kvlab-rw");
    call("UserGrantRole",
         [&](auto* ctx) { return stub->UserGrantRole(ctx, alice_role, &granted); });
    etcdserverpb::AuthEnableResponse enabled;
    call("AuthEnable", [&](auto* ctx) {
      return stub->AuthEnable(ctx, etcdserverpb::AuthEnableRequest(), &enabled);
    });
  }

  // The options of a store on the suite's member: its CA, the client certificate, kUser.
  EtcdOptions Secure() const {
    EtcdOptions etcd;
    etcd.endpoints = cluster_->client_endpoints();
    etcd.timeout_ms = 3000;  // a failure that is retried ends within the test's budget
    etcd.ca_file = File("ca.pem");
    etcd.cert_file = File("client.pem");
    etcd.key_file = File("client.key");
    etcd.user = kUser;
    etcd.password = kPassword;
    return etcd;
  }

  Status Open(const EtcdOptions& etcd, std::unique_ptr<KvStore>* store) {
    StoreOptions options;
    options.dir = scratch_.Sub("store" + std::to_string(++opens_));
    return OpenEtcdStore(options, etcd, store);
  }

  static inline std::unique_ptr<ScratchDir> dir_;
  static inline std::unique_ptr<EtcdCluster> cluster_;
  ScratchDir scratch_;
  int opens_ = 0;
};

TEST_F(EtcdSecurityTest, OpensWithCaClientCertificateAndPassword) {
  std::unique_ptr<KvStore> store;
  const Status s = Open(Secure(), &store);
  ASSERT_TRUE(s.ok()) << s.ToString();
  EXPECT_EQ(Counter(store.get(), "etcd.authentications"), 1u);
  ASSERT_TRUE(store->Put("a", "1").ok());
  WriteBatch batch;
  batch.Put("b", "2");
  batch.Put("c", "3");
  batch.Delete("a");
  ASSERT_TRUE(store->Write(batch).ok());
  std::string v;
  ASSERT_TRUE(store->Get("b", &v).ok());
  EXPECT_EQ(v, "2");
  EXPECT_TRUE(store->Get("a", &v).IsNotFound());
  std::map<std::string, std::string> rows;
  auto it = store->NewIterator();
  for (it->SeekToLast(); it->Valid(); it->Prev()) rows.emplace(it->key(), it->value());
  ASSERT_TRUE(it->status().ok()) << it->status().ToString();
  EXPECT_EQ(rows, (std::map<std::string, std::string>{{"b", "2"}, {"c", "3"}}));
}

TEST_F(EtcdSecurityTest, WrongCaFailsTheOpenNamingTls) {
  EtcdOptions etcd = Secure();
  etcd.ca_file = File("other-ca.pem");
  std::unique_ptr<KvStore> store;
  const Status s = Open(etcd, &store);
  ASSERT_FALSE(s.ok());
  EXPECT_TRUE(Has(s.message(), "TLS handshake with " + etcd.endpoints[0] + " failed"))
      << s.ToString();
  EXPECT_TRUE(Has(s.message(), "does not verify with --etcd-cacert")) << s.ToString();
}

// With TLS 1.3 the member refuses a client without a certificate after the handshake, by
// closing the connection: gRPC sees a failed read, as from a member going down, so the call is
// retried until its timeout, and the error then says what else may close connections.
TEST_F(EtcdSecurityTest, MissingClientCertificateFailsTheOpenNamingTls) {
  EtcdOptions etcd = Secure();
  etcd.cert_file.clear();
  etcd.key_file.clear();
  etcd.timeout_ms = 500;
  std::unique_ptr<KvStore> store;
  const Status s = Open(etcd, &store);
  ASSERT_TRUE(s.IsUnavailable()) << s.ToString();
  EXPECT_TRUE(Has(s.message(),
                  "close TLS connections without a client certificate: does the "
                  "cluster require one (--client-cert-auth; give --etcd-cert and "
                  "--etcd-key)?"))
      << s.ToString();
}

TEST_F(EtcdSecurityTest, PlaintextToATlsMemberIsExplained) {
  EtcdOptions etcd = Secure();
  etcd.ca_file.clear();
  etcd.cert_file.clear();
  etcd.key_file.clear();
  etcd.timeout_ms = 500;
  std::unique_ptr<KvStore> store;
  const Status s = Open(etcd, &store);
  ASSERT_TRUE(s.IsUnavailable()) << s.ToString();
  EXPECT_TRUE(Has(s.message(), "does the cluster speak TLS (give --etcd-cacert)?")) << s.ToString();
}

TEST_F(EtcdSecurityTest, WrongPasswordFailsTheOpen) {
  EtcdOptions etcd = Secure();
  etcd.password = "wrong";
  std::unique_ptr<KvStore> store;
  const Status s = Open(etcd, &store);
  ASSERT_TRUE(s.IsInvalidArgument()) << s.ToString();
  EXPECT_TRUE(Has(s.message(),
                  "etcd: authentication failed for user 'alice': etcdserver: "
                  "authentication failed, invalid user ID or password"))
      << s.ToString();
}

TEST_F(EtcdSecurityTest, NoUserOnAnAuthenticatingClusterIsExplained) {
  EtcdOptions etcd = Secure();
  etcd.user.clear();
  etcd.password.clear();
  std::unique_ptr<KvStore> store;
  const Status s = Open(etcd, &store);
  ASSERT_FALSE(s.ok());
  // etcd takes a request without a token to come from the client certificate's common name
  // (kvlab-client), a user it does not know.
  EXPECT_TRUE(Has(s.message(), "--etcd-user")) << s.ToString();
}

TEST_F(EtcdSecurityTest, ExpiredTokenIsRenewedOnce) {
  std::unique_ptr<KvStore> store;
  const Status s = Open(Secure(), &store);
  ASSERT_TRUE(s.ok()) << s.ToString();
  ASSERT_TRUE(store->Put("k", "v").ok());
  const uint64_t before = Counter(store.get(), "etcd.authentications");
  // The member drops a token idle for 1 s (--auth-token-ttl), checking every second: after 2.1 s
  // of idleness it has usually dropped it (a loaded machine may take another round). The next
  // request is refused with "invalid auth token", renews the token and succeeds.
  for (int round = 0; round < 5 && Counter(store.get(), "etcd.authentications") == before;
       ++round) {
    std::this_thread::sleep_for(std::chrono::milliseconds(2100));
    std::string v;
    const Status g = store->Get("k", &v);
    ASSERT_TRUE(g.ok()) << g.ToString();
    EXPECT_EQ(v, "v");
  }
  EXPECT_EQ(Counter(store.get(), "etcd.authentications"), before + 1);
}

TEST_F(EtcdSecurityTest, BatchOverTheGivenMaxTxnOpsIsRefusedBeforeSending) {
  EtcdOptions etcd = Secure();
  etcd.max_txn_ops = 5;
  std::unique_ptr<KvStore> store;
  ASSERT_TRUE(Open(etcd, &store).ok());
  WriteBatch batch;
  for (int i = 0; i < 6; ++i) batch.Put("k" + std::to_string(i), "v");
  const uint64_t trips = Counter(store.get(), "etcd.round_trips");
  const Status s = store->Write(batch);
  ASSERT_TRUE(s.IsInvalidArgument()) << s.ToString();
  EXPECT_TRUE(Has(s.message(), "a batch of 6 operations")) << s.ToString();
  EXPECT_TRUE(Has(s.message(), "--max-txn-ops of 5")) << s.ToString();
  EXPECT_EQ(Counter(store.get(), "etcd.round_trips"), trips) << "nothing was sent";
  batch.Clear();
  for (int i = 0; i < 5; ++i) batch.Put("k" + std::to_string(i), "v");
  EXPECT_TRUE(store->Write(batch).ok());
}

// The options' own checks: before any file is written or any connection made.
TEST(EtcdSecurityOptions, AreCheckedBeforeConnecting) {
  ScratchDir dir;
  std::ofstream(dir.Sub("not-pem")) << "hello\n";
  std::ofstream(dir.Sub("ca.pem")) << "-----BEGIN CERTIFICATE-----\n";
  const std::string endpoint = "127.0.0.1:" + std::to_string(FreeLoopbackPort());
  struct Case {
    std::function<void(EtcdOptions*)> set;
    std::string error;
  };
  const std::vector<Case> cases = {
      {[&](EtcdOptions* o) { o->ca_file = dir.Sub("missing.pem"); },
       "etcd: --etcd-cacert " + dir.Sub("missing.pem") + ": cannot read it: No such file"},
      {[&](EtcdOptions* o) { o->ca_file = dir.Sub("not-pem"); },
       "--etcd-cacert " + dir.Sub("not-pem") + ": not a PEM file"},
      {[&](EtcdOptions* o) {
         o->ca_file = dir.Sub("ca.pem");
         o->cert_file = dir.Sub("ca.pem");
       },
       "--etcd-cert " + dir.Sub("ca.pem") + " needs --etcd-key"},
      {[&](EtcdOptions* o) {
         o->ca_file = dir.Sub("ca.pem");
         o->key_file = dir.Sub("ca.pem");
       },
       "--etcd-key " + dir.Sub("ca.pem") + " needs --etcd-cert"},
      {[&](EtcdOptions* o) {
         o->cert_file = dir.Sub("ca.pem");
         o->key_file = dir.Sub("ca.pem");
       },
       "--etcd-cert needs --etcd-cacert"},
      {[&](EtcdOptions* o) {
         o->endpoints.clear();
         o->user = "bob";
       },
       "TLS and authentication need the endpoints of a cluster"},
      {[&](EtcdOptions* o) { o->endpoints = {"https://" + endpoint}; },
       "endpoint https://" + endpoint + " asks for TLS"},
      {[&](EtcdOptions* o) {
         o->endpoints = {"http://" + endpoint};
         o->ca_file = dir.Sub("ca.pem");
       },
       "is plaintext, but --etcd-cacert turns TLS on"},
  };
  for (const Case& c : cases) {
    EtcdOptions etcd;
    etcd.endpoints = {endpoint};
    c.set(&etcd);
    StoreOptions options;
    options.dir = dir.Sub("store");
    std::unique_ptr<KvStore> store;
    const Status s = OpenEtcdStore(options, etcd, &store);
    EXPECT_TRUE(s.IsInvalidArgument()) << c.error << ": " << s.ToString();
    EXPECT_TRUE(Has(s.message(), c.error)) << s.ToString();
    EXPECT_FALSE(fs::exists(dir.Sub("store"))) << c.error << ": the store's directory was made";
  }
}

}  // namespace
}  // namespace kvlab::backends
