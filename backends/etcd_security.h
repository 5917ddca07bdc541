// The etcd backend's security options (EtcdOptions: TLS files, user and password), checked and
// read before any connection, and what etcd's refusals mean for them. Plain C++: the gRPC
// credentials are made from these in etcd_store.cc (gRPC types stay inside backends/*.cc).
#pragma once

#include <string>
#include <vector>

#include "backends/etcd_store.h"

namespace kvlab::backends {

// The PEM texts of EtcdOptions' TLS files. ca empty: plaintext.
struct EtcdTlsFiles {
  std::string ca;
  std::string cert;  // with key, or both empty
  std::string key;
  bool on() const { return !ca.empty(); }
};

// Checks that the options go together (TLS and a user only with endpoints; a client
// certificate with its key and a CA; a password with a user) and reads the TLS files. Fails
// with InvalidArgument naming the flag (--etcd-cacert, ...) and the file: one that cannot be
// read, or holds no PEM block.
Status LoadEtcdSecurity(const EtcdOptions& options, EtcdTlsFiles* out);

// The endpoints as gRPC targets ("host:port"). etcdctl's "https://host:port" is taken when TLS
// is on, "http://host:port" when it is off; the scheme is dropped. Fails naming a bad one.
Status ParseEtcdEndpoints(const std::vector<std::string>& given, bool tls,
                          std::vector<std::string>* out);

// Classifies a failed gRPC call by its status code (grpc::StatusCode, as an int) and message.
// A connection that failed its TLS handshake (gRPC reports UNAVAILABLE, as for a member that
// is down, with the handshake's error in the message).
bool IsEtcdTlsFailure(int grpc_code, const std::string& message);
// The explanation of a TLS failure (IsEtcdTlsFailure) with `endpoint`: "the TLS handshake with
// <endpoint> failed (<what to check>): <gRPC's message>".
std::string EtcdTlsFailureText(const std::string& endpoint, const std::string& message);
// etcd refused the request's token: expired ("invalid auth token"), or none was sent to a
// cluster that has enabled authentication ("user name is empty").
bool IsEtcdTokenRefusal(const std::string& message);
// What a refusal means for kvlab's flags, to append to etcd's message: " (...)", or "".
// `user`: the store authenticates (EtcdOptions::user).
std::string EtcdRefusalHint(int grpc_code, const std::string& message, bool user);
// What may keep every member from serving, besides a lost quorum, given the last error: " ...?"
// to insert in the message of a call that ran out of time, or "". `tls`, `client_cert`: the
// store speaks TLS, and presents a client certificate.
std::string EtcdUnavailableHint(bool tls, bool client_cert, const std::string& last_error);

}  // namespace kvlab::backends
