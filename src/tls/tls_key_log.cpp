// TlsKeyLog (see tls_key_log.hpp). Ownership: HTTP thread after creation.

#include "tls/tls_key_log.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <utility>

namespace sluice {

Result<TlsKeyLog> TlsKeyLog::open(const std::string& path) {
  TlsKeyLog log;
  log.fd_ = ::open(path.c_str(), O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0600);
  if (log.fd_ < 0)
    return Error(ErrorCategory::usage, "TLS: cannot open key log file " + path +
                                           " (SSLKEYLOGFILE): " + std::strerror(errno));
  return log;
}

TlsKeyLog::TlsKeyLog(TlsKeyLog&& other) noexcept : fd_(std::exchange(other.fd_, -1)) {}

TlsKeyLog& TlsKeyLog::operator=(TlsKeyLog&& other) noexcept {
  if (this != &other) {
    if (fd_ >= 0) ::close(fd_);
    fd_ = std::exchange(other.fd_, -1);
  }
  return *this;
}

TlsKeyLog::~TlsKeyLog() {
  if (fd_ >= 0) ::close(fd_);
}

void TlsKeyLog::append(std::string_view line) const noexcept {
  if (fd_ < 0) return;
  // One write per line: O_APPEND then keeps lines from several writers whole. Key
  // log lines are under 200 bytes.
  char buffer[512];
  if (line.size() + 1 > sizeof buffer) return;
  std::memcpy(buffer, line.data(), line.size());
  buffer[line.size()] = '\n';
  ssize_t rv;
  do {
    rv = ::write(fd_, buffer, line.size() + 1);
  } while (rv < 0 && errno == EINTR);
}

}  // namespace sluice
