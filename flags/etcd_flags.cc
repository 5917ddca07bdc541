#include "flags/etcd_flags.h"

#include <stdlib.h>

#include <cerrno>
#include <cstring>
#include <fstream>

#include "flags/conventions.h"

namespace kvlab::flags {

void EtcdFlags::AddTo(CLI::App* app) {
  CLI::Option* endpoints_opt =
      app->add_option(
             "--etcd-endpoints", endpoints,
             "With --backend etcd: the client endpoints (host:port,...) of the etcd cluster to "
             "keep the store in, under a key prefix of its own (default: a private 3-member "
             "cluster that kvlab starts under the store directory, on free loopback ports)")
          ->delimiter(',');
  app->add_option("--etcd-max-txn-ops", max_txn_ops,
                  "The etcd cluster's --max-txn-ops, which bounds a batch: a larger one fails "
                  "before it is sent (default: etcd's 128 with --etcd-endpoints; without them, "
                  "the private cluster's members run with this limit, 10000 by default)")
      ->check(Positive());
  CLI::Option* ca = app->add_option("--etcd-cacert", ca_file,
                                    "With --etcd-endpoints: speak TLS to the cluster, verifying "
                                    "its members' certificates with this CA bundle (PEM)")
                        ->check(CLI::ExistingFile)
                        ->needs(endpoints_opt);
  CLI::Option* cert =
      app->add_option("--etcd-cert", cert_file,
                      "With --etcd-cacert: the client certificate (PEM) for a cluster that "
                      "requires one (etcd's --client-cert-auth); needs --etcd-key")
          ->check(CLI::ExistingFile)
          ->needs(ca);
  CLI::Option* key = app->add_option("--etcd-key", key_file, "The private key (PEM) of --etcd-cert")
                         ->check(CLI::ExistingFile)
                         ->needs(cert);
  cert->needs(key);
  CLI::Option* user_opt =
      app->add_option("--etcd-user", user,
                      std::string("With --etcd-endpoints: authenticate to the cluster as this "
                                  "etcd user; its password comes from the environment "
                                  "variable ") +
                          kEtcdPasswordVariable +
                          " or --etcd-password-file, never from the command line, which other "
                          "users see in ps")
          ->needs(endpoints_opt);
  app->add_option("--etcd-password-file", password_file,
                  std::string("The password of --etcd-user: the first line of this file "
                              "(instead of $") +
                      kEtcdPasswordVariable + ")")
      ->check(CLI::ExistingFile)
      ->needs(user_opt);
}

backends::EtcdOptions EtcdFlags::ToOptions() const {
  backends::EtcdOptions o;
  o.endpoints = endpoints;
  o.max_txn_ops = max_txn_ops;
  o.ca_file = ca_file;
  o.cert_file = cert_file;
  o.key_file = key_file;
  o.user = user;
  if (user.empty()) return o;
  if (!password_file.empty()) {
    std::ifstream in(password_file);
    if (!in) {
      throw UsageError("--etcd-password-file " + password_file +
                       ": cannot read it: " + std::strerror(errno));
    }
    std::getline(in, o.password);
    if (!o.password.empty() && o.password.back() == '\r') o.password.pop_back();
    if (o.password.empty()) {
      throw UsageError("--etcd-password-file " + password_file +
                       ": empty (its first line is the password of --etcd-user " + user + ")");
    }
    return o;
  }
  const char* env = ::getenv(kEtcdPasswordVariable);
  if (env == nullptr || *env == '\0') {
    throw UsageError("--etcd-user " + user + " needs its password: set " + kEtcdPasswordVariable +
                     " or give --etcd-password-file (never on the command line, which other "
                     "users see in ps)");
  }
  o.password = env;
  return o;
}

std::vector<std::string> EtcdFlags::Arguments() const {
  std::vector<std::string> out;
  if (!endpoints.empty()) {
    std::string list;
    for (const std::string& e : endpoints) list += (list.empty() ? "" : ",") + e;
    out.insert(out.end(), {"--etcd-endpoints", list});
  }
  if (max_txn_ops != 0) out.insert(out.end(), {"--etcd-max-txn-ops", std::to_string(max_txn_ops)});
  for (const auto& [flag, value] : {std::pair{"--etcd-cacert", &ca_file},
                                    {"--etcd-cert", &cert_file},
                                    {"--etcd-key", &key_file},
                                    {"--etcd-user", &user},
                                    {"--etcd-password-file", &password_file}}) {
    if (!value->empty()) out.insert(out.end(), {flag, *value});
  }
  return out;
}

}  // namespace kvlab::flags
