#pragma once
// Files a Client keeps between runs (the Alt-Svc cache, HSTS hosts, TLS sessions, the
// cookie jar): read whole, and replaced whole. A replacement goes to a temporary file
// beside the target, is flushed to disk, then renamed over it: a reader (another
// run, at the same moment) sees the old file or the new one, never half of either.
// Any thread; no state.

#include <optional>
#include <string>
#include <string_view>

#include "sluice/error.hpp"

namespace sluice {

/// The whole file, or nullopt when it does not exist (a first run). Other failures
/// (a directory, no permission) are ErrorCategory::io errors naming `what` and `path`.
Result<std::optional<std::string>> read_state_file(std::string_view what, const std::string& path);

/// Replaces `path` with `text` atomically (see above). The file gets mode 0600: some
/// of these files hold secrets, and none is anyone else's business. Errors name
/// `what` ("cookie file") and `path`; on failure the old file is left as it was.
Result<void> replace_state_file(std::string_view what, const std::string& path,
                                std::string_view text);

}  // namespace sluice
