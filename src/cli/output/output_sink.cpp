#include "cli/output/output_sink.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <utility>

namespace sluice::cli {

namespace {

// curl's --no-clobber: FILE, then FILE.1 up to FILE.100, each created only if it is new.
constexpr int kMaxClobberSuffix = 100;

}  // namespace

OutputSink::OutputSink(std::string path, OpenMode mode) : path_(std::move(path)), mode_(mode) {
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
  if (mode_ == OpenMode::keep_existing) return open_new();
  const int how = mode_ == OpenMode::append ? O_APPEND : O_TRUNC;
  fd_ = ::open(path_.c_str(), O_WRONLY | O_CREAT | how | O_CLOEXEC, 0666);
  if (fd_ < 0) {
    return Error(ErrorCategory::io,
                 "cannot open " + describe_target() + " for writing: " + std::strerror(errno));
  }
  return {};
}

Result<void> OutputSink::open_new() {
  const std::string asked = path_;
  for (int suffix = 0; suffix <= kMaxClobberSuffix; ++suffix) {
    path_ = suffix == 0 ? asked : asked + "." + std::to_string(suffix);
    fd_ = ::open(path_.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
    if (fd_ >= 0) return {};
    // /dev/null or a FIFO holds nothing to keep: written as it is, not beside it.
    struct stat info {};
    if (errno == EEXIST && suffix == 0 && ::stat(path_.c_str(), &info) == 0 &&
        !S_ISREG(info.st_mode) && !S_ISDIR(info.st_mode)) {
      fd_ = ::open(path_.c_str(), O_WRONLY | O_CLOEXEC);
      if (fd_ >= 0) return {};
    }
    if (errno != EEXIST) {
      return Error(ErrorCategory::io,
                   "cannot open " + describe_target() + " for writing: " + std::strerror(errno));
    }
  }
  path_ = asked;
  return Error(ErrorCategory::io, "cannot open '" + asked + "' for writing: it and '" + asked +
                                      ".1' to '" + asked + ".100' exist (--no-clobber)");
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
