#pragma once
// The file side of a download: opening, sizing, renaming and removing files and
// directories, with errors (category io) that name the path and the reason.
// Functions: any thread. OutputFile: owned by one download; its range threads write
// through it at once (positional writes of disjoint ranges need no lock).

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <utility>

#include "sluice/error.hpp"

namespace sluice {

/// "No such file or directory" for an errno value.
std::string errno_text(int error);

/// mkdir -p of the directory that holds `path`.
Result<void> create_parent_directories(const std::string& path);
/// Whether `path` names something that is not a regular file but takes bytes in
/// order: a character device (/dev/null, a terminal), a FIFO or a socket, as
/// /dev/stdout often is. False when it does not exist, or is a file or directory.
bool is_stream_output(const std::string& path);
/// curl's --no-clobber: `path` when nothing of that name exists (or it is a stream,
/// which holds nothing to keep), else the first of PATH.1 ... PATH.100 that does
/// not; an error (category io) when all exist.
Result<std::string> first_free_name(const std::string& path);
/// The size of `path`, std::nullopt when it does not exist.
Result<std::optional<std::uint64_t>> existing_file_size(const std::string& path);
/// Reads a small file whole; std::nullopt when it does not exist.
Result<std::optional<std::string>> read_small_file(const std::string& path, std::size_t limit);
/// Writes `content` to `path` + ".tmp", then renames it over `path`.
Result<void> replace_file(const std::string& path, const std::string& content);
Result<void> rename_file(const std::string& from, const std::string& to);
/// A missing file is not an error.
Result<void> remove_file(const std::string& path);

/// The file a download writes, open for reading and writing.
class OutputFile {
 public:
  /// Opens (creating) `path`, keeping what it holds.
  static Result<OutputFile> open(const std::string& path);
  /// Opens `path` (is_stream_output()) for writing in order: write_at() then appends,
  /// whatever its offset says, so the caller writes one range from its start on;
  /// resize() does nothing.
  static Result<OutputFile> open_stream(const std::string& path);
  OutputFile(OutputFile&& other) noexcept;
  OutputFile& operator=(OutputFile&&) = delete;
  OutputFile(const OutputFile&) = delete;
  ~OutputFile();

  int fd() const noexcept { return fd_; }
  bool is_stream() const noexcept { return stream_; }
  const std::string& path() const noexcept { return path_; }
  /// The file holds the resource from byte `origin` on (a range download): offsets
  /// and sizes below count the resource's bytes, the file's byte 0 being `origin`.
  void set_origin(std::uint64_t origin) noexcept { origin_ = origin; }
  /// ftruncate: cuts the file or pre-sizes it (sparse) to `size`.
  Result<void> resize(std::uint64_t size);
  Result<std::uint64_t> size() const;
  /// Reads up to `length` bytes at `offset` (fewer at the end of the file).
  Result<std::size_t> read_at(char* into, std::size_t length, std::uint64_t offset) const;
  /// Writes all of `bytes` at `offset`, through short writes and signals.
  Result<void> write_at(std::span<const std::byte> bytes, std::uint64_t offset) const;

 private:
  OutputFile(std::string path, int fd, bool stream)
      : path_(std::move(path)), fd_(fd), stream_(stream) {}
  std::string path_;
  int fd_ = -1;
  bool stream_ = false;  // open_stream(): written in order, never sized
  std::uint64_t origin_ = 0;
};

}  // namespace sluice
