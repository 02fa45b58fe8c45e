// PlainTransport: Transport over a connected TCP socket without TLS.
// Ownership: HTTP thread only; owns and closes its fd.

#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <string>
#include <utility>

#include "net/socket_error.hpp"
#include "net/transport.hpp"

namespace sluice {
namespace {

class PlainTransport final : public Transport {
 public:
  explicit PlainTransport(int fd) : fd_(fd) {}
  ~PlainTransport() override {
    if (fd_ >= 0) close(fd_);
  }
  PlainTransport(const PlainTransport&) = delete;
  PlainTransport& operator=(const PlainTransport&) = delete;

  int fd() const noexcept override { return fd_; }
  Result<IoStatus> handshake() override { return IoStatus::done; }

  Result<IoOutcome> read(std::span<std::byte> into) override {
    // recv of 0 bytes would return 0 and look like end of stream.
    if (into.empty()) return IoOutcome{};
    for (;;) {
      const ssize_t got = recv(fd_, into.data(), into.size(), 0);
      if (got > 0) return IoOutcome{static_cast<std::size_t>(got), IoStatus::done};
      if (got == 0) return IoOutcome{0, IoStatus::eof};
      if (errno == EINTR) continue;
      if (errno == EAGAIN || errno == EWOULDBLOCK) return IoOutcome{0, IoStatus::want_read};
      return socket_io_error(errno, true);
    }
  }

  Result<IoOutcome> write(std::span<const std::byte> from) override {
    if (from.empty()) return IoOutcome{};
    for (;;) {
      // MSG_NOSIGNAL: a peer that went away is an error value, not SIGPIPE.
      const ssize_t sent = send(fd_, from.data(), from.size(), MSG_NOSIGNAL);
      if (sent >= 0) return IoOutcome{static_cast<std::size_t>(sent), IoStatus::done};
      if (errno == EINTR) continue;
      if (errno == EAGAIN || errno == EWOULDBLOCK) return IoOutcome{0, IoStatus::want_write};
      return socket_io_error(errno, false);
    }
  }

  std::string alpn() const override { return {}; }
  bool is_tls() const noexcept override { return false; }
  int release_socket() noexcept override { return std::exchange(fd_, -1); }

 private:
  int fd_;
};

}  // namespace

std::unique_ptr<Transport> make_plain_transport(int fd) {
  return std::make_unique<PlainTransport>(fd);
}

}  // namespace sluice
