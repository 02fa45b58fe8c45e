#pragma once
// What the `sluice` command asks of the terminal: whether a descriptor is one, how
// big it is, and writing text to it whole. The progress display uses these so that
// it can be tested against a string instead.
// Ownership: stateless functions; any thread (the caller serializes writes to one fd).

#include <cstddef>
#include <optional>
#include <string_view>

namespace sluice::cli {

struct TerminalSize {
  std::size_t columns = 0;
  std::size_t rows = 0;
};

/// Whether `fd` is a terminal (isatty).
bool is_terminal(int fd) noexcept;

/// The window size of the terminal on `fd` (TIOCGWINSZ), or nothing when `fd` is
/// not a terminal or the terminal reports 0 columns (some serial consoles do).
std::optional<TerminalSize> terminal_size(int fd) noexcept;

/// Writes all of `text` to `fd`, retrying short writes and EINTR. Returns false when
/// the descriptor refuses (closed, EPIPE); progress output is best effort, so the
/// caller may ignore it.
bool write_all_to_fd(int fd, std::string_view text) noexcept;

}  // namespace sluice::cli
