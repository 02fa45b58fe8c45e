#include "connect/socks5_handshake.hpp"

#include <netinet/in.h>

#include <cstring>

namespace sluice {
namespace {

constexpr char kVersion = 5;
constexpr char kNoAuthentication = 0;
constexpr char kUsernamePassword = 2;
constexpr unsigned char kNoAcceptableMethod = 0xff;
constexpr std::size_t kMaxNameBytes = 255;  // one length byte (RFC 1928 section 5)

// RFC 1928 section 6's reply codes, as a person would say them.
const char* reply_text(unsigned char code) {
  switch (code) {
    case 1: return "general failure";
    case 2: return "not allowed by its rules";
    case 3: return "network unreachable";
    case 4: return "host unreachable";
    case 5: return "connection refused";
    case 6: return "TTL expired";
    case 7: return "command not supported";
    case 8: return "address type not supported";
    default: return "an unknown reply code";
  }
}

std::string port_bytes(std::uint16_t port) {
  return {static_cast<char>(port >> 8), static_cast<char>(port & 0xff)};
}

}  // namespace

Socks5Handshake::Socks5Handshake(const ProxyHop& proxy, std::string host, std::uint16_t port,
                                 std::optional<SocketAddress> address)
    : proxy_display_(proxy.display),
      user_(proxy.user),
      password_(proxy.password),
      host_(std::move(host)),
      port_(port),
      address_(std::move(address)) {
  const bool credentials = !user_.empty() || !password_.empty();
  if (credentials) {
    send({kVersion, 2, kNoAuthentication, kUsernamePassword});
  } else {
    send({kVersion, 1, kNoAuthentication});
  }
}

void Socks5Handshake::send(std::string message) {
  out_ = std::move(message);
  sent_ = 0;
}

TunnelHandshake::Progress Socks5Handshake::send_connect() {
  // A name goes after one length byte: a longer one would be cut to its length
  // modulo 256, and the proxy would read the rest as the port and the next request
  // (curl's CVE-2023-38545 overflowed a buffer on this path).
  if (!address_ && host_.size() > kMaxNameBytes) {
    return fail(ErrorCode::usage, "the host name is " + std::to_string(host_.size()) +
                                      " bytes, longer than the 255 SOCKS5 carries (socks5:// "
                                      "resolves it here)");
  }
  std::string request{kVersion, 1 /* CONNECT */, 0};
  if (address_ && address_->storage.ss_family == AF_INET) {
    const auto& v4 = reinterpret_cast<const sockaddr_in&>(address_->storage);
    request += '\x01';
    request.append(reinterpret_cast<const char*>(&v4.sin_addr), 4);
  } else if (address_ && address_->storage.ss_family == AF_INET6) {
    const auto& v6 = reinterpret_cast<const sockaddr_in6&>(address_->storage);
    request += '\x04';
    request.append(reinterpret_cast<const char*>(&v6.sin6_addr), 16);
  } else {
    request += '\x03';
    request += static_cast<char>(host_.size());
    request += host_;
  }
  request += port_bytes(port_);
  send(std::move(request));
  step_ = Step::connect;
  return Progress::waiting;
}

TunnelHandshake::Progress Socks5Handshake::fail(ErrorCode code, std::string what) {
  step_ = Step::failed;
  error_ = Error(code, "proxy " + proxy_display_ + ": SOCKS5: " + what);
  return Progress::failed;
}

TunnelHandshake::Progress Socks5Handshake::feed(std::string_view bytes) {
  if (step_ == Step::failed) return Progress::failed;
  if (step_ == Step::open) {
    if (bytes.empty()) return Progress::open;
    return fail(ErrorCode::proxy_handshake, "bytes after the proxy's answer to CONNECT");
  }
  in_.append(bytes);
  const std::optional<Progress> progress = step();
  if (!progress) return Progress::waiting;
  // Each answer follows a message of ours: bytes beyond one answer came before the
  // proxy could have read what it answers (the message just queued is not even sent).
  if (*progress == Progress::waiting && !in_.empty()) {
    return fail(ErrorCode::proxy_handshake, "an answer before the proxy was asked");
  }
  return *progress;
}

std::optional<TunnelHandshake::Progress> Socks5Handshake::step() {
  const auto byte = [this](std::size_t i) { return static_cast<unsigned char>(in_[i]); };
  switch (step_) {
    case Step::method: {
      if (in_.size() < 2) return std::nullopt;
      if (byte(0) != kVersion)
        return fail(ErrorCode::proxy_handshake, "the proxy does not speak SOCKS5");
      const unsigned char method = byte(1);
      in_.erase(0, 2);
      if (method == kNoAcceptableMethod) {
        return fail(ErrorCode::proxy_refused,
                    user_.empty() ? "the proxy wants credentials (socks5://user:password@host)"
                                  : "the proxy accepts none of the offered authentication methods");
      }
      if (method == kUsernamePassword && (!user_.empty() || !password_.empty())) {
        if (user_.size() > 255 || password_.size() > 255) {
          return fail(ErrorCode::usage, "a user name or password longer than 255 bytes");
        }
        std::string request{1, static_cast<char>(user_.size())};
        request += user_;
        request += static_cast<char>(password_.size());
        request += password_;
        send(std::move(request));
        step_ = Step::credentials;
        return Progress::waiting;
      }
      if (method != kNoAuthentication) {
        return fail(ErrorCode::proxy_handshake, "the proxy chose a method that was not offered");
      }
      return send_connect();
    }
    case Step::credentials: {
      if (in_.size() < 2) return std::nullopt;
      const unsigned char status = byte(1);
      in_.erase(0, 2);
      if (status != 0) return fail(ErrorCode::proxy_refused, "the proxy refused the credentials");
      return send_connect();
    }
    case Step::connect: {
      if (in_.size() < 5) return std::nullopt;
      if (byte(0) != kVersion)
        return fail(ErrorCode::proxy_handshake, "a malformed answer to CONNECT");
      const unsigned char reply = byte(1);
      // The bound address that follows: 4 or 16 bytes, or a name with its length.
      std::size_t address_length = 0;
      switch (byte(3)) {
        case 1: address_length = 4; break;
        case 4: address_length = 16; break;
        case 3: address_length = 1 + byte(4); break;
        default:
          return fail(ErrorCode::proxy_handshake,
                      "an answer to CONNECT with an unknown address type");
      }
      const std::size_t total = 4 + address_length + 2;
      if (in_.size() < total) return std::nullopt;
      const bool more = in_.size() > total;
      in_.clear();
      if (reply != 0) {
        return fail(ErrorCode::proxy_refused, "the proxy could not reach " + host_ + ":" +
                                                  std::to_string(port_) + " (" + reply_text(reply) +
                                                  ")");
      }
      if (more)
        return fail(ErrorCode::proxy_handshake, "bytes after the proxy's answer to CONNECT");
      step_ = Step::open;
      return Progress::open;
    }
    case Step::open: return Progress::open;
    case Step::failed: return Progress::failed;
  }
  return Progress::failed;
}

}  // namespace sluice
