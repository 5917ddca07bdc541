#include "backends/etcd_cluster.h"

#include <arpa/inet.h>
#include <grpcpp/grpcpp.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <random>
#include <sstream>
#include <thread>

#include "etcd/etcdserver/etcdserverpb/rpc.grpc.pb.h"

namespace kvlab::backends {
namespace fs = std::filesystem;

namespace {

constexpr char kLayoutMagic[] = "kvlab-etcd-cluster 1";
constexpr auto kClusterReadyTimeout = std::chrono::seconds(20);

std::string Url(int port) { return "http://127.0.0.1:" + std::to_string(port); }

// The member's Status, or an error when it does not answer within `timeout`.
grpc::Status MemberStatus(int client_port, std::shared_ptr<grpc::ChannelCredentials> credentials,
                          std::chrono::milliseconds timeout, etcdserverpb::StatusResponse* out) {
  auto channel =
      grpc::CreateChannel("127.0.0.1:" + std::to_string(client_port), std::move(credentials));
  auto stub = etcdserverpb::Maintenance::NewStub(channel);
  grpc::ClientContext ctx;
  ctx.set_deadline(std::chrono::system_clock::now() + timeout);
  return stub->Status(&ctx, etcdserverpb::StatusRequest(), out);
}

Status ReadFile(const std::string& path, std::string* out) {
  std::ifstream in(path);
  if (!in) return Status::IOError("etcd: cannot read " + path);
  std::stringstream ss;
  ss << in.rdbuf();
  *out = ss.str();
  return Status::OK();
}

}  // namespace

bool LoopbackPortAccepts(int port) {
  const int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd < 0) return false;
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  addr.sin_port = htons(static_cast<uint16_t>(port));
  const bool ok = ::connect(fd, reinterpret_cast<sockaddr*>(&addr), sizeof(addr)) == 0;
  ::close(fd);
  return ok;
}

Status EtcdCluster::LoadOrCreateLayout() {
  std::error_code ec;
  fs::create_directories(options_.dir, ec);
  if (ec) return Status::IOError("etcd: cannot create " + options_.dir + ": " + ec.message());
  const fs::path path = fs::path(options_.dir) / "cluster";
  std::ifstream in(path);
  if (in) {
    std::string magic1, magic2;
    int n = 0;
    if (!(in >> magic1 >> magic2 >> token_ >> n) || magic1 + " " + magic2 != kLayoutMagic ||
        n != options_.members) {
      return Status::InvalidArgument("etcd: " + path.string() + ": not a private cluster of " +
                                     std::to_string(options_.members) + " members");
    }
    for (int i = 0; i < n; ++i) {
      auto m = std::make_unique<Member>();
      if (!(in >> m->client_port >> m->peer_port)) {
        return Status::InvalidArgument("etcd: " + path.string() + ": truncated");
      }
      members_.push_back(std::move(m));
    }
    fresh_ = false;
    return Status::OK();
  }
  std::random_device rd;
  token_ = "kvlab-" + std::to_string(rd()) + std::to_string(rd());
  std::ostringstream text;
  text << kLayoutMagic << "\n" << token_ << "\n" << options_.members << "\n";
  for (int i = 0; i < options_.members; ++i) {
    auto m = std::make_unique<Member>();
    m->client_port = FreeLoopbackPort();
    m->peer_port = FreeLoopbackPort();
    if (m->client_port == 0 || m->peer_port == 0 || m->client_port == m->peer_port) {
      return Status::IOError("etcd: no free loopback ports for the private cluster");
    }
    text << m->client_port << " " << m->peer_port << "\n";
    members_.push_back(std::move(m));
  }
  std::ofstream out(path);
  out << text.str();
  out.flush();
  if (!out) return Status::IOError("etcd: cannot write " + path.string());
  fresh_ = true;
  return Status::OK();
}

std::vector<std::string> EtcdCluster::MemberArgs(int i) const {
  std::string initial;
  for (int j = 0; j < size(); ++j) {
    initial += (j ? "," : "") + ("member" + std::to_string(j)) + "=" + Url(members_[j]->peer_port);
  }
  const fs::path dir(options_.dir);
  const Member& m = *members_[i];
  const std::string name = "member" + std::to_string(i);
  std::vector<std::string> args = {
      "etcd", "--name", name, "--data-dir", (dir / name).string(), "--listen-client-urls",
      ClientUrl(i), "--advertise-client-urls", ClientUrl(i), "--listen-peer-urls", Url(m.peer_port),
      "--initial-advertise-peer-urls", Url(m.peer_port), "--initial-cluster", initial,
      // Ignored once the member has data: it rejoins the cluster its data names.
      "--initial-cluster-state", "new", "--initial-cluster-token", token_, "--max-txn-ops",
      std::to_string(options_.max_txn_ops), "--heartbeat-interval", "50", "--election-timeout",
      "500", "--auto-compaction-mode", "periodic", "--auto-compaction-retention", "5m",
      "--snapshot-count", "10000", "--logger", "zap", "--log-outputs",
      (dir / (name + ".log")).string()};
  if (options_.tls.has_value()) {
    args.insert(args.end(),
                {"--cert-file", options_.tls->cert_file, "--key-file", options_.tls->key_file,
                 "--trusted-ca-file", options_.tls->ca_file, "--client-cert-auth"});
  }
  args.insert(args.end(), options_.extra_args.begin(), options_.extra_args.end());
  return args;
}

std::string EtcdCluster::ClientUrl(int i) const {
  return (options_.tls.has_value() ? "https://127.0.0.1:" : "http://127.0.0.1:") +
         std::to_string(members_[i]->client_port);
}

std::string EtcdCluster::LogTail(int i) const {
  std::ifstream in(fs::path(options_.dir) / ("member" + std::to_string(i) + ".log"));
  std::stringstream ss;
  ss << in.rdbuf();
  const std::string all = ss.str();
  return all.size() > 2000 ? all.substr(all.size() - 2000) : all;
}

Status EtcdCluster::Start(EtcdClusterOptions options, std::unique_ptr<EtcdCluster>* out) {
  std::unique_ptr<EtcdCluster> cluster(new EtcdCluster());
  cluster->options_ = std::move(options);
  KVLAB_RETURN_IF_ERROR(cluster->LoadOrCreateLayout());
  EtcdCluster* c = cluster.get();
  if (c->options_.tls.has_value()) {
    KVLAB_RETURN_IF_ERROR(ReadFile(c->options_.tls->ca_file, &c->probe_ca_));
    KVLAB_RETURN_IF_ERROR(ReadFile(c->options_.tls->probe_cert_file, &c->probe_cert_));
    KVLAB_RETURN_IF_ERROR(ReadFile(c->options_.tls->probe_key_file, &c->probe_key_));
  }
  for (int i = 0; i < c->size(); ++i) {
    Member* m = c->members_[i].get();
    ChildProcessOptions po;
    po.name = "etcd member" + std::to_string(i);
    po.install_hint = "is the etcd-server package installed?";
    po.supervise = c->options_.supervise;
    po.on_event = c->options_.on_event;
    // etcd's gRPC library writes its warnings to stderr, not to the log: keep them beside it.
    po.output_path = (fs::path(c->options_.dir) / ("member" + std::to_string(i) + ".out")).string();
    ChildProcessLauncher launcher;
    launcher.command = [c, i](int, std::vector<std::string>* args) {
      *args = c->MemberArgs(i);
      return Status::OK();
    };
    // A member serves clients only once the cluster has a leader, which needs the other
    // members: it is ready as soon as it listens to its peers.
    launcher.ready = [m] { return LoopbackPortAccepts(m->peer_port); };
    launcher.log_tail = [c, i] { return c->LogTail(i); };
    m->process = std::make_unique<ChildProcess>(std::move(po), std::move(launcher));
  }
  for (int i = 0; i < c->size(); ++i) {
    Status s = c->member(i).Start();
    if (!s.ok()) {
      return Status::IOError("etcd: private cluster in " + c->options_.dir + ": " + s.message() +
                             (c->fresh_ ? ""
                                        : " (are its ports, recorded in its cluster file, "
                                          "taken by another process?)"));
    }
  }
  if (c->Leader(kClusterReadyTimeout) < 0) {
    return Status::IOError("etcd: the private cluster in " + c->options_.dir +
                           " elected no leader within " +
                           std::to_string(kClusterReadyTimeout.count()) + " s: " + c->LogTail(0));
  }
  *out = std::move(cluster);
  return Status::OK();
}

EtcdCluster::~EtcdCluster() {
  for (auto& m : members_) {
    if (m->process) m->process->Stop();
  }
}

std::vector<PrivateServer> EtcdCluster::Servers() const {
  std::vector<PrivateServer> out;
  for (int i = 0; i < size(); ++i) {
    const ChildProcess& p = *members_[i]->process;
    out.push_back(
        {"etcd_member" + std::to_string(i), ChildProcessStateName(p.state()), p.restarts()});
  }
  return out;
}

std::vector<std::string> EtcdCluster::client_endpoints() const {
  std::vector<std::string> out;
  for (const auto& m : members_) out.push_back("127.0.0.1:" + std::to_string(m->client_port));
  return out;
}

int EtcdCluster::Leader(std::chrono::milliseconds timeout) const {
  std::shared_ptr<grpc::ChannelCredentials> credentials = grpc::InsecureChannelCredentials();
  if (options_.tls.has_value()) {
    grpc::SslCredentialsOptions ssl;
    ssl.pem_root_certs = probe_ca_;
    ssl.pem_cert_chain = probe_cert_;
    ssl.pem_private_key = probe_key_;
    credentials = grpc::SslCredentials(ssl);
  }
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  do {
    for (int i = 0; i < size(); ++i) {
      if (!members_[i]->process->running()) continue;
      etcdserverpb::StatusResponse status;
      if (MemberStatus(members_[i]->client_port, credentials, std::chrono::milliseconds(300),
                       &status)
              .ok() &&
          status.leader() != 0 && status.leader() == status.header().member_id()) {
        return i;
      }
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  } while (std::chrono::steady_clock::now() < deadline);
  return -1;
}

}  // namespace kvlab::backends
