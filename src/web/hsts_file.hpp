#pragma once
// curl's HSTS cache file (--hsts FILE), one host a line:
//   [.]host "YYYYMMDD HH:MM:SS"
// a leading dot for includeSubDomains, then when the entry ends (UTC); curl writes
// "unlimited" instead of a time for hosts that never expire, read here as the
// latest time the format holds. Pure functions, any thread (fuzzed).

#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "core/state_lines.hpp"
#include "web/hsts.hpp"

namespace sluice {

struct HstsFileContents {
  std::vector<HstsStore::Entry> entries;
  std::vector<SkippedLine> skipped;  ///< lines that were not entries, with the reason
};

/// Parses a whole file. Never fails: a line of another shape, a bad host name, an IP
/// address or a bad time is skipped and named in `skipped`. Expiry is not checked.
HstsFileContents parse_hsts_file(std::string_view text);

/// The file for `entries`, with curl's header comment.
std::string format_hsts_file(std::span<const HstsStore::Entry> entries);

}  // namespace sluice
