#include "io/proxy_connect.hpp"

namespace sluice {
namespace {
// A proxy's answer to CONNECT is a status line and a few fields: a head larger than
// this is not one, and reading on would let a broken proxy fill memory.
constexpr std::size_t kMaxReplyHead = 16 * 1024;
}  // namespace

std::string connect_request(std::string_view authority, std::string_view authorization) {
  std::string request = "CONNECT ";
  request.append(authority).append(" HTTP/1.1\r\nHost: ").append(authority).append("\r\n");
  if (!authorization.empty()) {
    request.append("Proxy-Authorization: ").append(authorization).append("\r\n");
  }
  request.append("\r\n");
  return request;
}

ConnectReply::State ConnectReply::feed(std::string_view bytes) {
  if (state_ != State::incomplete) {
    // Nothing may follow the answer before the client speaks (TLS's ClientHello):
    // bytes here would be taken for the target's.
    if (!bytes.empty() && state_ == State::open) {
      state_ = State::malformed;
      summary_ = "bytes after its answer to CONNECT";
    }
    return state_;
  }
  head_.append(bytes);
  const std::size_t end = head_.find("\r\n\r\n");
  if (end == std::string::npos) {
    if (head_.size() > kMaxReplyHead) {
      state_ = State::malformed;
      summary_ = "an answer to CONNECT longer than 16 KiB";
    }
    return state_;
  }
  const bool more = end + 4 != head_.size();
  head_.resize(end);
  state_ = parse_head();
  // A refusal may carry a body (squid's error page): the connection is dropped
  // anyway. After a 2xx the tunnel is the target's: nothing may come before the
  // client speaks, or it would be taken for the target's bytes.
  if (state_ == State::open && more) {
    state_ = State::malformed;
    summary_ = "bytes after its answer to CONNECT";
  }
  return state_;
}

ConnectReply::State ConnectReply::parse_head() {
  const std::string_view head(head_);
  const std::string_view line = head.substr(0, head.find("\r\n"));
  // "HTTP/1.1 200 Connection established"
  if (!line.starts_with("HTTP/1.") || line.size() < 12 || line[8] != ' ') {
    summary_ = "an answer to CONNECT that is not HTTP/1.x ('" + std::string(line.substr(0, 40)) + "')";
    return State::malformed;
  }
  int status = 0;
  for (std::size_t i = 9; i < 12; ++i) {
    if (line[i] < '0' || line[i] > '9') {
      summary_ = "an answer to CONNECT without a status ('" + std::string(line.substr(0, 40)) + "')";
      return State::malformed;
    }
    status = status * 10 + (line[i] - '0');
  }
  status_ = status;
  summary_ = std::string(line.substr(9));
  return status >= 200 && status < 300 ? State::open : State::refused;
}

}  // namespace sluice
