#pragma once
// The CONNECT exchange that opens a tunnel through an HTTP proxy (RFC 9110 section
// 9.3.6), sans I/O: the request to send, and a parser for the proxy's answer. The
// tunnel is open on a 2xx; anything else is the proxy's refusal, reported with its
// status and reason ("403 Forbidden") so a person can act on it.
// Ownership: plain values; HTTP thread (Connector).

#include <cstddef>
#include <string>
#include <string_view>

namespace sluice {

/// "CONNECT host:port HTTP/1.1" with Host and, when given, Proxy-Authorization.
std::string connect_request(std::string_view authority, std::string_view authorization);

class ConnectReply {
 public:
  enum class State { incomplete, open, refused, malformed };

  /// Takes the next bytes received; returns the state after them.
  State feed(std::string_view bytes);
  State state() const noexcept { return state_; }
  int status() const noexcept { return status_; }
  /// "403 Forbidden", or what is wrong with a malformed answer.
  const std::string& summary() const noexcept { return summary_; }

 private:
  State parse_head();

  std::string head_;
  State state_ = State::incomplete;
  int status_ = 0;
  std::string summary_;
};

}  // namespace sluice
