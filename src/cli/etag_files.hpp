#pragma once
// --etag-compare and --etag-save: an ETag kept in a file between runs, as curl keeps
// it (the value with its quotes, on one line), so `--etag-compare F --etag-save F`
// downloads only what changed.
// Ownership: pure functions on main's thread.

#include <optional>
#include <string>
#include <string_view>

#include "sluice/error.hpp"

namespace sluice::cli {

/// The ETag in `path` (its first line, trimmed); nullopt when the file is missing or
/// empty, which makes the request unconditional, as curl does.
std::optional<std::string> read_etag_file(const std::string& path);

/// Writes `etag` and a newline to `path`, or an empty file when the response had
/// none (curl's behaviour). Error category io, naming the file.
Result<void> save_etag_file(const std::string& path, std::optional<std::string_view> etag);

}  // namespace sluice::cli
