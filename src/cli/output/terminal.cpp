#include "cli/output/terminal.hpp"

#include <sys/ioctl.h>
#include <unistd.h>

#include <cerrno>

namespace sluice::cli {

bool is_terminal(int fd) noexcept { return ::isatty(fd) == 1; }

std::optional<TerminalSize> terminal_size(int fd) noexcept {
  winsize size{};
  if (::ioctl(fd, TIOCGWINSZ, &size) != 0 || size.ws_col == 0) return std::nullopt;
  return TerminalSize{size.ws_col, size.ws_row};
}

bool write_all_to_fd(int fd, std::string_view text) noexcept {
  while (!text.empty()) {
    ssize_t written = ::write(fd, text.data(), text.size());
    if (written < 0 && errno == EINTR) continue;
    if (written <= 0) return false;
    text.remove_prefix(static_cast<std::size_t>(written));
  }
  return true;
}

}  // namespace sluice::cli
