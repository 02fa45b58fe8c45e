#include "download/file/download_file.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <system_error>
#include <utility>

namespace sluice {
namespace {

Error io_error(const std::string& what, const std::string& path, int error) {
  return Error(ErrorCategory::io,
               "download: cannot " + what + " '" + path + "': " + errno_text(error));
}

std::string parent_of(const std::string& path) {
  const std::size_t slash = path.rfind('/');
  if (slash == std::string::npos) return {};
  return path.substr(0, slash);
}

Result<void> make_directory(const std::string& dir) {
  if (::mkdir(dir.c_str(), 0777) == 0) return {};
  const int error = errno;
  struct stat info {};
  if (error == EEXIST && ::stat(dir.c_str(), &info) == 0) {
    if (S_ISDIR(info.st_mode)) return {};
    return Error(ErrorCategory::io, "download: cannot create directory '" + dir +
                                        "': a file of that name is in the way");
  }
  return io_error("create directory", dir, error);
}

Result<void> write_all(int fd, const std::string& content, const std::string& path) {
  std::size_t done = 0;
  while (done < content.size()) {
    const ssize_t rv = ::write(fd, content.data() + done, content.size() - done);
    if (rv < 0 && errno == EINTR) continue;
    if (rv < 0) return io_error("write", path, errno);
    done += static_cast<std::size_t>(rv);
  }
  return {};
}

}  // namespace

std::string errno_text(int error) {
  return std::error_code(error, std::generic_category()).message();
}

Result<void> create_parent_directories(const std::string& path) {
  const std::string parent = parent_of(path);
  if (parent.empty()) return {};
  // Each prefix ending before a '/', then the parent itself: mkdir -p.
  for (std::size_t slash = parent.find('/', 1); slash != std::string::npos;
       slash = parent.find('/', slash + 1)) {
    if (auto made = make_directory(parent.substr(0, slash)); !made) return made;
  }
  return make_directory(parent);
}

bool is_stream_output(const std::string& path) {
  struct stat info {};
  if (::stat(path.c_str(), &info) != 0) return false;
  return S_ISCHR(info.st_mode) || S_ISFIFO(info.st_mode) || S_ISSOCK(info.st_mode);
}

Result<std::string> first_free_name(const std::string& path) {
  constexpr int kLastSuffix = 100;  // curl's
  if (is_stream_output(path)) return path;
  for (int suffix = 0; suffix <= kLastSuffix; ++suffix) {
    std::string name = suffix == 0 ? path : path + "." + std::to_string(suffix);
    struct stat info {};
    if (::lstat(name.c_str(), &info) != 0 && errno == ENOENT) return name;
  }
  return Error(ErrorCategory::io, "download: '" + path + "' and '" + path + ".1' to '" + path +
                                      ".100' exist (keep_existing: none is overwritten)");
}

Result<std::optional<std::uint64_t>> existing_file_size(const std::string& path) {
  struct stat info {};
  if (::stat(path.c_str(), &info) != 0) {
    if (errno == ENOENT) return std::optional<std::uint64_t>();
    return io_error("examine", path, errno);
  }
  if (!S_ISREG(info.st_mode)) {
    return Error(ErrorCategory::io, "download: '" + path + "' is not a regular file");
  }
  return std::optional<std::uint64_t>(static_cast<std::uint64_t>(info.st_size));
}

Result<std::optional<std::string>> read_small_file(const std::string& path, std::size_t limit) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) {
    if (errno == ENOENT) return std::optional<std::string>();
    return io_error("open", path, errno);
  }
  std::string content;
  char block[4096];
  for (;;) {
    const ssize_t rv = ::read(fd, block, sizeof block);
    if (rv < 0 && errno == EINTR) continue;
    if (rv < 0) {
      const int error = errno;
      ::close(fd);
      return io_error("read", path, error);
    }
    if (rv == 0) break;
    content.append(block, static_cast<std::size_t>(rv));
    if (content.size() > limit) {
      ::close(fd);
      return Error(ErrorCategory::io,
                   "download: '" + path + "' is larger than " + std::to_string(limit) + " bytes");
    }
  }
  ::close(fd);
  return std::optional<std::string>(std::move(content));
}

Result<void> replace_file(const std::string& path, const std::string& content) {
  const std::string temporary = path + ".tmp";
  const int fd = ::open(temporary.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0666);
  if (fd < 0) return io_error("create", temporary, errno);
  auto written = write_all(fd, content, temporary);
  if (::close(fd) != 0 && written) written = io_error("write", temporary, errno);
  if (!written) {
    ::unlink(temporary.c_str());
    return written;
  }
  return rename_file(temporary, path);
}

Result<void> rename_file(const std::string& from, const std::string& to) {
  if (std::rename(from.c_str(), to.c_str()) != 0) {
    return Error(ErrorCategory::io,
                 "download: cannot rename '" + from + "' to '" + to + "': " + errno_text(errno));
  }
  return {};
}

Result<void> remove_file(const std::string& path) {
  if (::unlink(path.c_str()) != 0 && errno != ENOENT) return io_error("remove", path, errno);
  return {};
}

Result<OutputFile> OutputFile::open(const std::string& path) {
  const int fd = ::open(path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0666);
  if (fd < 0) return io_error("open", path, errno);
  return OutputFile(path, fd, false);
}

Result<OutputFile> OutputFile::open_stream(const std::string& path) {
  // Write-only and never created: a FIFO or a terminal need not be readable, and a
  // stream that went away must not become a regular file of that name.
  const int fd = ::open(path.c_str(), O_WRONLY | O_CLOEXEC);
  if (fd < 0) return io_error("open", path, errno);
  return OutputFile(path, fd, true);
}

OutputFile::OutputFile(OutputFile&& other) noexcept
    : path_(std::move(other.path_)), fd_(std::exchange(other.fd_, -1)), stream_(other.stream_) {}

OutputFile::~OutputFile() {
  if (fd_ >= 0) ::close(fd_);
}

Result<void> OutputFile::resize(std::uint64_t size) {
  if (stream_) return {};
  if (::ftruncate(fd_, static_cast<off_t>(size - std::min(size, origin_))) != 0)
    return io_error("resize", path_, errno);
  return {};
}

Result<std::uint64_t> OutputFile::size() const {
  struct stat info {};
  if (::fstat(fd_, &info) != 0) return io_error("examine", path_, errno);
  return static_cast<std::uint64_t>(info.st_size) + origin_;
}

Result<std::size_t> OutputFile::read_at(char* into, std::size_t length,
                                        std::uint64_t offset) const {
  for (;;) {
    const ssize_t rv = ::pread(fd_, into, length, static_cast<off_t>(offset - origin_));
    if (rv < 0 && errno == EINTR) continue;
    if (rv < 0) return io_error("read", path_, errno);
    return static_cast<std::size_t>(rv);
  }
}

Result<void> OutputFile::write_at(std::span<const std::byte> bytes, std::uint64_t offset) const {
  // The message is built only on failure: this runs once per staged block received.
  const auto what = [&] {
    return "write " + std::to_string(bytes.size()) + " bytes at offset " + std::to_string(offset) +
           " of";
  };
  std::size_t done = 0;
  while (done < bytes.size()) {
    // A pipe has no offsets (pwrite fails with ESPIPE): a stream takes bytes in order.
    const ssize_t rv = stream_ ? ::write(fd_, bytes.data() + done, bytes.size() - done)
                               : ::pwrite(fd_, bytes.data() + done, bytes.size() - done,
                                          static_cast<off_t>(offset - origin_ + done));
    if (rv < 0 && errno == EINTR) continue;
    if (rv < 0) return io_error(what(), path_, errno);
    // pwrite never returns 0 for a non-empty buffer on a regular file; if a device
    // does, give up rather than spin.
    if (rv == 0) {
      return Error(ErrorCategory::io,
                   "download: cannot " + what() + " '" + path_ + "': the file took no bytes");
    }
    done += static_cast<std::size_t>(rv);
  }
  return {};
}

}  // namespace sluice
