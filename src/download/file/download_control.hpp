#pragma once
// The control file PATH.sluice beside an incomplete download: what a later run needs
// to continue it (URL, size, validator, how far each range got). Text, one field a
// line, a versioned first line and a closing "end" line, written atomically (a
// temporary file renamed over it), so a reader sees an old version or a new one,
// never half of one.
// Values and functions: any thread; one writer per file at a time (the download).

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "download/download_ranges.hpp"
#include "sluice/error.hpp"

namespace sluice {

struct ControlFile {
  std::string url;                    ///< as the caller asked for it, without a user:password
  std::optional<std::uint64_t> size;  ///< the file's size when known
  /// The If-Range value: a strong ETag ("\"abc\"") or a Last-Modified date; empty
  /// when the server gave neither.
  std::string validator;
  std::vector<RangeSpec> ranges;  ///< in file order, not overlapping
  /// The resource's byte that is the file's byte 0: 0, or the first byte of a range
  /// download (DownloadOptions::range). Ranges and size count the resource's bytes.
  std::uint64_t origin = 0;

  bool operator==(const ControlFile&) const = default;
};

std::string format_control(const ControlFile& control);
/// Rejects anything format_control() would not write: another version, a missing or
/// malformed line, ranges out of order or past the size. `name` goes in the message.
Result<ControlFile> parse_control(std::string_view text, std::string_view name);

/// Writes `control` to `path` through a temporary file and rename.
Result<void> save_control(const std::string& path, const ControlFile& control);
/// std::nullopt when `path` does not exist.
Result<std::optional<ControlFile>> load_control(const std::string& path);
/// Removes `path`; a missing file is not an error.
Result<void> remove_control(const std::string& path);

}  // namespace sluice
