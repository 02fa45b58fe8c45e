#pragma once
// Where the body goes: stdout or a file opened only once a response is accepted, so
// a failed connect or a -f error never creates or truncates the file. Writes go
// straight to the descriptor (no stdio buffer), one body chunk at a time.
// Ownership: one per transfer, main thread only.

#include <cstddef>
#include <cstdint>
#include <span>
#include <string>

#include "sluice/error.hpp"

namespace sluice::cli {

/// How open() treats a file that exists already.
enum class OpenMode {
  replace,  ///< truncated (curl's default)
  append,   ///< written after what it holds (-C: curl appends the rest)
  /// --no-clobber: kept; the output goes to the first of FILE.1 ... FILE.100 that does
  /// not exist, and open() fails when all do
  keep_existing,
};

class OutputSink {
 public:
  /// `path` empty or "-" means stdout.
  explicit OutputSink(std::string path, OpenMode mode = OpenMode::replace);
  ~OutputSink();
  OutputSink(const OutputSink&) = delete;
  OutputSink& operator=(const OutputSink&) = delete;

  /// Opens (creating, or as the mode says) the file; no-op for stdout. With
  /// keep_existing, path() is then the name really used. Error category io.
  Result<void> open();
  /// Writes every byte, retrying short writes and EINTR. Error category io.
  Result<void> write_all(std::span<const std::byte> bytes);
  /// Closes the file and reports a failed close (a full disk can show up only here).
  Result<void> close();

  bool is_file() const noexcept { return !path_.empty() && path_ != "-"; }
  const std::string& path() const noexcept { return path_; }
  std::uint64_t bytes_written() const noexcept { return bytes_written_; }

 private:
  std::string describe_target() const;
  /// keep_existing's open: the first name of FILE, FILE.1 ... FILE.100 that is new.
  Result<void> open_new();

  std::string path_;
  OpenMode mode_;
  int fd_ = -1;
  std::uint64_t bytes_written_ = 0;
};

}  // namespace sluice::cli
