#pragma once
// Alt-Svc (RFC 7838): a strict, bounded parser of the response header's value, and
// the per-origin cache of HTTP/3 alternatives that automatic mode consults before
// opening a connection.
// parse_alt_svc: pure, any thread. AltSvcCache: owned by the client core (one per
// Client), HTTP thread only; no locking. Time is always passed in, never read here,
// so tests drive it by hand.

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/event_loop.hpp"

namespace sluice {

/// One alternative of an Alt-Svc value, as the server wrote it.
struct AltSvcAlternative {
  std::string protocol_id;              ///< percent-decoded ALPN id: "h3", "h3-29", "h2"
  std::string host;                     ///< lowercased, no brackets; empty: the origin's own host
  std::uint16_t port = 0;               ///< never 0 in a parsed alternative
  std::chrono::seconds max_age{86400};  ///< "ma", default 24 h, capped at 2^31 s
  bool persist = false;                 ///< "persist=1"; kept for callers, the cache ignores it
};

/// A whole Alt-Svc field value.
struct AltSvcField {
  enum class Kind {
    ignored,       ///< nothing usable (garbage, oversized): leave the cache alone
    clear,         ///< "clear": forget every alternative of the origin
    alternatives,  ///< one or more well-formed entries (possibly all non-h3)
  };
  Kind kind = Kind::ignored;
  std::vector<AltSvcAlternative> alternatives;  ///< in the server's order of preference
};

/// Values longer than this are ignored whole: cutting one would turn "ma=2592000"
/// into "ma=2592" and keep a truncated entry as if the server had sent it.
inline constexpr std::size_t kAltSvcMaxValueBytes = 16 * 1024;
/// Entries after this many well-formed ones are dropped.
inline constexpr std::size_t kAltSvcMaxAlternatives = 32;

/// Parses an Alt-Svc field value (several header lines may be joined with ", ").
/// Never fails: a malformed entry (bad token, unterminated or badly escaped quote,
/// bad percent-encoding (either hex case is accepted), missing or invalid port,
/// non-numeric "ma") is skipped and the rest still counts; unknown parameters are
/// ignored; "clear" counts only as the whole value.
AltSvcField parse_alt_svc(std::string_view value);

/// Where to try HTTP/3 for an origin.
struct AltSvcEntry {
  std::string host;  ///< empty: the origin's own host (see host_or)
  std::uint16_t port = 0;
  TimePoint expires;

  /// The host to connect to. The TLS certificate must still be verified against the
  /// origin's host, never this one (RFC 7838 section 2.1).
  std::string_view host_or(std::string_view origin_host) const noexcept {
    return host.empty() ? origin_host : std::string_view(host);
  }
};

/// Remembers, per origin ("https://host:port", as Url::origin() spells it), the "h3"
/// alternatives its last Alt-Svc advertised. Draft ids ("h3-29", "h3-Q050") are not
/// kept: sluice speaks QUIC v1 with ALPN "h3" only. Other protocols are not kept
/// either. Only https origins are remembered.
/// Bounded: at most max_origins origins; a new one beyond that evicts the origin
/// updated longest ago. At most kMaxEntriesPerOrigin alternatives per origin.
/// Ownership: the client core's; HTTP thread only.
class AltSvcCache {
 public:
  static constexpr std::size_t kDefaultMaxOrigins = 1000;
  static constexpr std::size_t kMaxEntriesPerOrigin = 8;

  explicit AltSvcCache(std::size_t max_origins = kDefaultMaxOrigins);

  /// Applies an Alt-Svc value received from `origin` at `now`. As RFC 7838 section 3
  /// says, a value replaces everything cached for the origin: "clear" and a list
  /// without a live "h3" entry (ma=0 included) forget its alternatives. An ignored
  /// value changes nothing. A broken mark survives the update: the TCP responses
  /// that follow a failed h3 attempt advertise h3 again.
  void update(std::string_view origin, const AltSvcField& field, TimePoint now);
  /// parse_alt_svc and update in one call.
  void update(std::string_view origin, std::string_view header_value, TimePoint now);

  /// The preferred live h3 alternative of `origin`: the first in the server's order
  /// that has not expired, unless the origin is marked broken. Drops expired data.
  std::optional<AltSvcEntry> lookup(std::string_view origin, TimePoint now);

  /// After a failed h3 attempt (no handshake in time, QUIC error): lookup returns
  /// nothing for `origin` until now + for_duration, so automatic mode goes straight
  /// to TCP instead of paying the failed attempt on every request (RFC 7838 section
  /// 2.4). Works for an origin without cached alternatives too (--http3 mode tried h3
  /// unprompted), and a later mark replaces an earlier one.
  void mark_broken(std::string_view origin, TimePoint now, std::chrono::nanoseconds for_duration);
  bool is_broken(std::string_view origin, TimePoint now) const;

  std::size_t origin_count() const noexcept { return origins_.size(); }

  /// One origin's alternative, as saved to a file and read back.
  struct Saved {
    std::string origin;
    AltSvcEntry entry;
  };
  /// Every live alternative, origin by origin in the server's order, for a file
  /// (ClientOptions::state.alt_svc_file). Broken marks are not saved: the next run
  /// may well find the network that failed working again.
  std::vector<Saved> saved(TimePoint now) const;
  /// An alternative read back from a file, after those `origin` has already; an
  /// expired one or one beyond kMaxEntriesPerOrigin is dropped. Only https origins.
  void restore(std::string_view origin, AltSvcEntry entry, TimePoint now);

 private:
  struct OriginRecord {
    std::vector<AltSvcEntry> entries;  ///< h3 only, server's order
    std::optional<TimePoint> broken_until;
    std::uint64_t touched = 0;  ///< update order, for eviction
  };

  /// The origin's record, created (evicting if full) when missing; marks it newest.
  OriginRecord& record_for(std::string_view origin, TimePoint now);
  void make_room(TimePoint now);
  static bool drop_expired(OriginRecord& record, TimePoint now);

  std::size_t max_origins_;
  std::uint64_t next_touch_ = 0;
  std::map<std::string, OriginRecord, std::less<>> origins_;
};

}  // namespace sluice
