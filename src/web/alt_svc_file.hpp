#pragma once
// curl's Alt-Svc cache file (--alt-svc FILE), one alternative a line:
//   ALPN host port ALPN alt-host alt-port "YYYYMMDD HH:MM:SS" persist priority
// the first three naming the origin (and the protocol it was learned over), the next
// three where it said HTTP/3 is, then when that ends (UTC). IPv6 hosts are written
// in brackets. Only "h3" alternatives are kept: sluice speaks QUIC v1 only.
// Pure functions, any thread: fuzzed (the file is input another program may write).

#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "core/state_lines.hpp"

namespace sluice {

/// One h3 alternative of an https origin.
struct AltSvcFileEntry {
  std::string host;  ///< the origin's: lowercase, no brackets
  std::uint16_t port = 443;
  std::string alt_host;  ///< where HTTP/3 is; lowercase, no brackets
  std::uint16_t alt_port = 443;
  UnixSeconds expires = 0;
  bool persist = false;
};

struct AltSvcFileContents {
  std::vector<AltSvcFileEntry> entries;
  std::vector<SkippedLine> skipped;  ///< lines that were not entries, with the reason
};

/// Parses a whole file. Never fails: a line of another shape, another protocol than
/// h3, a bad host, port or date is skipped and named in `skipped`. Expiry is not
/// checked here (the caller knows the time).
AltSvcFileContents parse_alt_svc_file(std::string_view text);

/// The file for `entries`, with curl's header comment. "h2" is written as the
/// protocol each was learned over (sluice learns them over TCP, HTTP/2 or 1.1; curl
/// looks up both).
std::string format_alt_svc_file(std::span<const AltSvcFileEntry> entries);

}  // namespace sluice
