#include "connect/proxy_connect.hpp"

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
  // The head ends at an empty line; a bare LF ends a line too (RFC 9112 section 2.2).
  std::size_t end = std::string::npos;
  std::size_t end_length = 0;
  for (std::size_t i = head_.find('\n'); i != std::string::npos; i = head_.find('\n', i + 1)) {
    if (i + 1 < head_.size() && head_[i + 1] == '\n') {
      end = i + 1;
      end_length = 1;
      break;
    }
    if (i + 2 < head_.size() && head_[i + 1] == '\r' && head_[i + 2] == '\n') {
      end = i + 1;
      end_length = 2;
      break;
    }
  }
  if (end == std::string::npos) {
    if (head_.size() > kMaxReplyHead) {
      state_ = State::malformed;
      summary_ = "an answer to CONNECT longer than 16 KiB";
    }
    return state_;
  }
  const bool more = end + end_length != head_.size();
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

namespace {
// What a message may quote of the proxy's bytes: printable ASCII, at most 80 of them
// (they reach a terminal: no escape sequences, no floods).
std::string printable(std::string_view text) {
  std::string out;
  for (char c : text.substr(0, 80)) out += c >= 0x20 && c < 0x7f ? c : '?';
  return out;
}
bool digit(char c) { return c >= '0' && c <= '9'; }
}  // namespace

ConnectReply::State ConnectReply::parse_head() {
  std::string_view line = std::string_view(head_).substr(0, head_.find('\n'));
  if (line.ends_with('\r')) line.remove_suffix(1);
  // "HTTP/1.1 200 Connection established": exactly three digits, then a space or the end.
  const bool well_formed = line.starts_with("HTTP/1.") && line.size() >= 12 && digit(line[7]) &&
                           line[8] == ' ' && digit(line[9]) && digit(line[10]) && digit(line[11]) &&
                           (line.size() == 12 || line[12] == ' ');
  if (!well_formed) {
    summary_ =
        "an answer to CONNECT that is not an HTTP/1.x status line ('" + printable(line) + "')";
    return State::malformed;
  }
  status_ = (line[9] - '0') * 100 + (line[10] - '0') * 10 + (line[11] - '0');
  summary_ = printable(line.substr(9));
  return status_ >= 200 && status_ < 300 ? State::open : State::refused;
}

}  // namespace sluice
