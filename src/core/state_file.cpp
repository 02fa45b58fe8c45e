#include "core/state_file.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

namespace sluice {
namespace {

Error io_error(std::string_view what, std::string_view action, const std::string& path,
               int error_number) {
  return Error(ErrorCategory::io, std::string(what) + ": cannot " + std::string(action) + " '" +
                                      path + "': " + std::strerror(error_number));
}

// errno on failure, 0 when every byte went.
int write_all(int fd, std::string_view text) {
  while (!text.empty()) {
    const ssize_t written = ::write(fd, text.data(), text.size());
    if (written < 0) {
      if (errno == EINTR) continue;
      return errno;
    }
    text.remove_prefix(static_cast<std::size_t>(written));
  }
  return 0;
}

}  // namespace

Result<std::optional<std::string>> read_state_file(std::string_view what, const std::string& path) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) {
    if (errno == ENOENT) return std::optional<std::string>();
    return io_error(what, "read", path, errno);
  }
  std::string text;
  char chunk[16 * 1024];
  while (true) {
    const ssize_t got = ::read(fd, chunk, sizeof chunk);
    if (got < 0) {
      if (errno == EINTR) continue;
      const int error_number = errno;
      ::close(fd);
      return io_error(what, "read", path, error_number);
    }
    if (got == 0) break;
    text.append(chunk, static_cast<std::size_t>(got));
  }
  ::close(fd);
  return std::optional<std::string>(std::move(text));
}

Result<void> replace_state_file(std::string_view what, const std::string& path,
                                std::string_view text) {
  std::string temp = path + ".XXXXXX";
  // mkostemp creates the file 0600, before any byte is in it.
  const int fd = ::mkostemp(temp.data(), O_CLOEXEC);
  if (fd < 0) return io_error(what, "create a temporary file beside", path, errno);
  int error_number = write_all(fd, text);
  if (error_number == 0 && ::fsync(fd) != 0) error_number = errno;
  if (::close(fd) != 0 && error_number == 0) error_number = errno;
  if (error_number == 0 && ::rename(temp.c_str(), path.c_str()) != 0) error_number = errno;
  if (error_number != 0) {
    ::unlink(temp.c_str());
    return io_error(what, "write", path, error_number);
  }
  return {};
}

}  // namespace sluice
