#pragma once
// HSTS (RFC 6797): the Strict-Transport-Security field's parser, and the store of
// known HSTS hosts that turns an http:// URL into https:// before any connection.
// parse_strict_transport_security: pure, any thread (fuzzed). HstsStore: owned by
// the client core, HTTP thread only; time (wall clock, seconds) is always passed in,
// so tests drive it by hand.

#include <chrono>
#include <cstddef>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/state_lines.hpp"

namespace sluice {

/// What a valid Strict-Transport-Security value says.
struct HstsDirectives {
  std::chrono::seconds max_age{0};
  bool include_subdomains = false;
};

/// Parses a Strict-Transport-Security value (RFC 6797 section 6.1): directives
/// separated by ';', names in any case, values a token or a quoted string. nullopt
/// (the field is ignored) when max-age is missing or not a number, a directive comes
/// twice, or includeSubDomains has a value. Unknown directives are ignored. max-age
/// is capped at 2^31 seconds.
std::optional<HstsDirectives> parse_strict_transport_security(std::string_view value);

/// The known HSTS hosts, each until its expiry. Bounded: at most max_hosts; a new
/// one beyond that evicts the host that expires first.
class HstsStore {
 public:
  static constexpr std::size_t kDefaultMaxHosts = 10'000;

  struct Entry {
    std::string host;  ///< lowercase, no trailing dot
    bool include_subdomains = false;
    UnixSeconds expires = 0;
  };

  explicit HstsStore(std::size_t max_hosts = kDefaultMaxHosts);

  /// A Strict-Transport-Security value received from `host`. The caller vouches that
  /// it came over https with a verified certificate (RFC 6797 section 8.1: never over
  /// http, never when the certificate was not checked). Ignored for IP addresses and
  /// invalid values; max-age=0 forgets the host.
  void update(std::string_view host, std::string_view value, UnixSeconds now);
  void update(std::string_view host, const HstsDirectives& directives, UnixSeconds now);

  /// Whether an http:// URL to `host` must become https:// (RFC 6797 section 8.3):
  /// the host is known, or a parent domain is known with includeSubDomains.
  bool applies_to(std::string_view host, UnixSeconds now) const;

  /// The entries still live at `now`, for a file (ClientOptions::state.hsts_file).
  std::vector<Entry> entries(UnixSeconds now) const;
  /// An entry read back from a file; an expired one or an IP address is dropped.
  void restore(Entry entry, UnixSeconds now);

  std::size_t size() const noexcept { return hosts_.size(); }

 private:
  void insert(Entry entry, UnixSeconds now);

  std::size_t max_hosts_;
  std::map<std::string, Entry, std::less<>> hosts_;
};

/// The host as the store keys it: lowercase, without a trailing dot.
std::string hsts_host_key(std::string_view host);

}  // namespace sluice
