#include "backends/etcd_security.h"

#include <grpcpp/grpcpp.h>

#include <cerrno>
#include <cstdio>
#include <cstring>

namespace kvlab::backends {

namespace {

bool Contains(const std::string& text, const char* what) {
  return text.find(what) != std::string::npos;
}

Status FileError(const char* flag, const std::string& path, const std::string& what) {
  return Status::InvalidArgument(std::string("etcd: ") + flag + " " + path + ": " + what);
}

// The text of one of EtcdOptions' PEM files.
Status ReadPem(const char* flag, const std::string& path, std::string* pem) {
  std::FILE* f = std::fopen(path.c_str(), "rb");
  if (f == nullptr)
    return FileError(flag, path, std::string("cannot read it: ") + std::strerror(errno));
  pem->clear();
  char buf[4096];
  size_t n;
  while ((n = std::fread(buf, 1, sizeof(buf), f)) > 0) pem->append(buf, n);
  const int err = std::ferror(f) != 0 ? errno : 0;
  std::fclose(f);
  if (err != 0) return FileError(flag, path, std::string("cannot read it: ") + std::strerror(err));
  if (!Contains(*pem, "-----BEGIN "))
    return FileError(flag, path, "not a PEM file (no -----BEGIN line)");
  return Status::OK();
}

}  // namespace

Status LoadEtcdSecurity(const EtcdOptions& o, EtcdTlsFiles* out) {
  *out = EtcdTlsFiles();
  if (o.endpoints.empty() && (!o.ca_file.empty() || !o.cert_file.empty() || !o.key_file.empty() ||
                              !o.user.empty() || !o.password.empty())) {
    return Status::InvalidArgument(
        "etcd: TLS and authentication need the endpoints of a cluster (--etcd-endpoints): the "
        "private cluster kvlab starts speaks plaintext and has no users");
  }
  if (!o.cert_file.empty() && o.key_file.empty()) {
    return Status::InvalidArgument("etcd: --etcd-cert " + o.cert_file +
                                   " needs --etcd-key, the certificate's private key");
  }
  if (o.cert_file.empty() && !o.key_file.empty()) {
    return Status::InvalidArgument("etcd: --etcd-key " + o.key_file +
                                   " needs --etcd-cert, the client certificate it belongs to");
  }
  if (!o.cert_file.empty() && o.ca_file.empty()) {
    return Status::InvalidArgument(
        "etcd: --etcd-cert needs --etcd-cacert, the CA that verifies the members' certificates "
        "(it turns TLS on)");
  }
  if (o.user.empty() && !o.password.empty()) {
    return Status::InvalidArgument("etcd: a password was given without --etcd-user");
  }
  if (o.ca_file.empty()) return Status::OK();
  KVLAB_RETURN_IF_ERROR(ReadPem("--etcd-cacert", o.ca_file, &out->ca));
  if (!o.cert_file.empty()) {
    KVLAB_RETURN_IF_ERROR(ReadPem("--etcd-cert", o.cert_file, &out->cert));
    KVLAB_RETURN_IF_ERROR(ReadPem("--etcd-key", o.key_file, &out->key));
  }
  return Status::OK();
}

Status ParseEtcdEndpoints(const std::vector<std::string>& given, bool tls,
                          std::vector<std::string>* out) {
  out->clear();
  for (std::string e : given) {
    if (e.starts_with("https://")) {
      if (!tls) {
        return Status::InvalidArgument("etcd: endpoint " + e +
                                       " asks for TLS: give --etcd-cacert, the CA that verifies "
                                       "the members' certificates");
      }
      e = e.substr(8);
    } else if (e.starts_with("http://")) {
      if (tls) {
        return Status::InvalidArgument("etcd: endpoint " + e +
                                       " is plaintext, but --etcd-cacert turns TLS on");
      }
      e = e.substr(7);
    }
    if (e.empty() || e.find(',') != std::string::npos || e.find(':') == std::string::npos ||
        e.find('/') != std::string::npos) {
      return Status::InvalidArgument("etcd: bad endpoint '" + e + "' (expected host:port)");
    }
    out->push_back(std::move(e));
  }
  return Status::OK();
}

bool IsEtcdTlsFailure(int grpc_code, const std::string& m) {
  return grpc_code == grpc::StatusCode::UNAVAILABLE &&
         (Contains(m, "andshake") || Contains(m, "SSL") || Contains(m, "TLS") ||
          Contains(m, "ertificate") || Contains(m, "CERTIFICATE"));
}

std::string EtcdTlsFailureText(const std::string& endpoint, const std::string& message) {
  std::string check;
  if (Contains(message, "certificate verify failed") ||
      Contains(message, "CERTIFICATE_VERIFY_FAILED")) {
    check =
        "the member's certificate does not verify with --etcd-cacert: is that the CA that "
        "signed the members' certificates, and do their names cover the endpoint's host?";
  } else if (Contains(message, "wrong version number") || Contains(message, "WRONG_VERSION")) {
    check = "the member answered in plaintext: for a cluster without TLS, drop --etcd-cacert";
  } else {
    check =
        "is --etcd-cacert the CA of the members' certificates? does the cluster require a "
        "client certificate (--etcd-cert, --etcd-key) its CA signed?";
  }
  return "the TLS handshake with " + endpoint + " failed (" + check + "): " + message;
}

bool IsEtcdTokenRefusal(const std::string& message) {
  return Contains(message, "etcdserver: invalid auth token") ||
         Contains(message, "etcdserver: user name is empty");
}

std::string EtcdRefusalHint(int grpc_code, const std::string& message, bool user) {
  if (Contains(message, "etcdserver: user name is empty")) {
    return " (the cluster has authentication enabled: give --etcd-user, and its password in "
           "KVLAB_ETCD_PASSWORD or --etcd-password-file)";
  }
  if (grpc_code == grpc::StatusCode::PERMISSION_DENIED && !user) {
    return " (the cluster has authentication enabled, and takes a request without a token to "
           "come from the user its client certificate names, if any: give --etcd-user, and its "
           "password in KVLAB_ETCD_PASSWORD or --etcd-password-file)";
  }
  if (grpc_code == grpc::StatusCode::PERMISSION_DENIED) {
    return " (the user needs readwrite permission on the keys with prefix kvlab/: etcdctl role "
           "grant-permission ROLE --prefix=true readwrite kvlab/)";
  }
  return "";
}

std::string EtcdUnavailableHint(bool tls, bool client_cert, const std::string& last_error) {
  // The member took the connection, then closed it: what a TLS-only member does to plaintext,
  // and what a member with --client-cert-auth does, after a TLS 1.3 handshake, to a client
  // without a certificate its CA signed (the client sees no handshake error).
  const bool closed = Contains(last_error, "Endpoint read failed") ||
                      Contains(last_error, "Socket closed") ||
                      Contains(last_error, "Connection reset");
  if (tls && closed) {
    return client_cert
               ? " Or do the members close TLS connections with this client certificate: did "
                 "the CA they trust sign --etcd-cert?"
               : " Or do the members close TLS connections without a client certificate: does "
                 "the cluster require one (--client-cert-auth; give --etcd-cert and "
                 "--etcd-key)?";
  }
  if (tls) return " Is TLS right: --etcd-cacert, --etcd-cert, --etcd-key?";
  if (closed) {
    return " Or do the members close plaintext connections: does the cluster speak TLS (give "
           "--etcd-cacert)?";
  }
  return "";
}

}  // namespace kvlab::backends
