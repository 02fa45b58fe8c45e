#include "cli/output/output_sink.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <utility>

namespace sluice::cli {

OutputSink::OutputSink(std::string path) : path_(std::move(path)) {
  if (!is_file()) fd_ = STDOUT_FILENO;
}

OutputSink::~OutputSink() {
  if (is_file() && fd_ >= 0) ::close(fd_);
}

std::string OutputSink::describe_target() const {
  return is_file() ? "'" + path_ + "'" : std::string("stdout");
}

Result<void> OutputSink::open() {
  if (!is_file() || fd_ >= 0) return {};
  fd_ = ::open(path_.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0666);
  if (fd_ < 0) {
    return Error(ErrorCategory::io,
                 "cannot open " + describe_target() + " for writing: " + std::strerror(errno));
  }
  return {};
}

Result<void> OutputSink::write_all(std::span<const std::byte> bytes) {
  while (!bytes.empty()) {
    ssize_t wrote = ::write(fd_, bytes.data(), bytes.size());
    if (wrote < 0 && errno == EINTR) continue;
    if (wrote < 0) {
      return Error(ErrorCategory::io,
                   "cannot write to " + describe_target() + ": " + std::strerror(errno));
    }
    bytes = bytes.subspan(static_cast<std::size_t>(wrote));
    bytes_written_ += static_cast<std::uint64_t>(wrote);
  }
  return {};
}

Result<void> OutputSink::close() {
  if (!is_file() || fd_ < 0) return {};
  int rv = ::close(std::exchange(fd_, -1));
  if (rv != 0 && errno != EINTR) {
    return Error(ErrorCategory::io,
                 "cannot finish writing " + describe_target() + ": " + std::strerror(errno));
  }
  return {};
}

}  // namespace sluice::cli
