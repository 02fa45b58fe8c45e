// Alt-Svc parsing (RFC 7838 section 3, with RFC 9110's token, quoted-string and list
// rules) and the per-origin cache of h3 alternatives.
#include "web/alt_svc.hpp"

#include <algorithm>
#include <iterator>

#include "core/http_token.hpp"

namespace sluice {
namespace {

// RFC 7234 section 1.2.1: a delta-seconds too large to represent is taken as 2^31.
constexpr std::int64_t kMaxAgeCap = std::int64_t{1} << 31;
// Longest DNS name; anything longer cannot be resolved anyway.
constexpr std::size_t kMaxHostBytes = 253;

bool is_ows(char c) noexcept { return c == ' ' || c == '\t'; }

bool is_digit(char c) noexcept { return c >= '0' && c <= '9'; }

bool is_alpha(char c) noexcept { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'); }

int hex_value(char c) noexcept {
  if (is_digit(c)) return c - '0';
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  return -1;
}

char to_lower(char c) noexcept { return (c >= 'A' && c <= 'Z') ? static_cast<char>(c + 32) : c; }

bool equals_ignoring_case(std::string_view a, std::string_view b) noexcept {
  return a.size() == b.size() && std::equal(a.begin(), a.end(), b.begin(), [](char x, char y) {
           return to_lower(x) == to_lower(y);
         });
}

std::string_view trim_ows(std::string_view text) noexcept {
  while (!text.empty() && is_ows(text.front())) text.remove_prefix(1);
  while (!text.empty() && is_ows(text.back())) text.remove_suffix(1);
  return text;
}

// Splits a list at the commas that are outside quoted strings. A backslash inside
// quotes hides the next character, so `"a\",b"` stays one element. An unterminated
// quote swallows the rest of the value, which then fails as one malformed element.
std::vector<std::string_view> split_list(std::string_view value) {
  std::vector<std::string_view> elements;
  std::size_t start = 0;
  bool quoted = false;
  for (std::size_t i = 0; i < value.size(); ++i) {
    const char c = value[i];
    if (quoted) {
      if (c == '\\') {
        ++i;
      } else if (c == '"') {
        quoted = false;
      }
    } else if (c == '"') {
      quoted = true;
    } else if (c == ',') {
      elements.push_back(value.substr(start, i - start));
      start = i + 1;
    }
  }
  elements.push_back(value.substr(start));
  return elements;
}

// A cursor over one list element; every parse_* consumes on success only.
class Cursor {
 public:
  explicit Cursor(std::string_view text) : text_(text) {}

  bool at_end() const noexcept { return pos_ == text_.size(); }
  void skip_ows() noexcept {
    while (!at_end() && is_ows(text_[pos_])) ++pos_;
  }
  bool consume(char c) noexcept {
    if (at_end() || text_[pos_] != c) return false;
    ++pos_;
    return true;
  }
  bool peek(char c) const noexcept { return !at_end() && text_[pos_] == c; }

  std::optional<std::string_view> parse_token() noexcept {
    const std::size_t start = pos_;
    while (!at_end() && is_token_char(text_[pos_])) ++pos_;
    if (pos_ == start) return std::nullopt;
    return text_.substr(start, pos_ - start);
  }

  // quoted-string = DQUOTE *( qdtext / quoted-pair ) DQUOTE, returned unescaped.
  std::optional<std::string> parse_quoted_string() {
    if (!peek('"')) return std::nullopt;
    std::size_t i = pos_ + 1;
    std::string out;
    for (; i < text_.size(); ++i) {
      const auto c = static_cast<unsigned char>(text_[i]);
      if (c == '"') {
        pos_ = i + 1;
        return out;
      }
      if (c == '\\') {
        if (++i == text_.size() || !is_quoted_pair_char(static_cast<unsigned char>(text_[i]))) {
          return std::nullopt;
        }
        out.push_back(text_[i]);
      } else if (is_qdtext(c)) {
        out.push_back(static_cast<char>(c));
      } else {
        return std::nullopt;
      }
    }
    return std::nullopt;  // no closing quote
  }

 private:
  static bool is_qdtext(unsigned char c) noexcept {
    return c == '\t' || c == ' ' || c == 0x21 || (c >= 0x23 && c <= 0x5B) ||
           (c >= 0x5D && c <= 0x7E) || c >= 0x80;
  }
  static bool is_quoted_pair_char(unsigned char c) noexcept {
    return c == '\t' || c == ' ' || (c >= 0x21 && c <= 0x7E) || c >= 0x80;
  }

  std::string_view text_;
  std::size_t pos_ = 0;
};

// protocol-id: a token whose "%XX" sequences encode the ALPN bytes.
std::optional<std::string> percent_decode(std::string_view token) {
  std::string out;
  out.reserve(token.size());
  for (std::size_t i = 0; i < token.size(); ++i) {
    if (token[i] != '%') {
      out.push_back(token[i]);
      continue;
    }
    if (i + 2 >= token.size()) return std::nullopt;  // "%" or "%4" at the end
    const int high = hex_value(token[i + 1]);
    const int low = hex_value(token[i + 2]);
    if (high < 0 || low < 0) return std::nullopt;
    out.push_back(static_cast<char>(high * 16 + low));
    i += 2;
  }
  return out;
}

std::optional<std::uint16_t> parse_port(std::string_view text) noexcept {
  if (text.empty() || text.size() > 5) return std::nullopt;
  std::uint32_t port = 0;
  for (char c : text) {
    if (!is_digit(c)) return std::nullopt;
    port = port * 10 + static_cast<std::uint32_t>(c - '0');
  }
  if (port == 0 || port > 65535) return std::nullopt;
  return static_cast<std::uint16_t>(port);
}

// A name or IPv4 address we would hand to the resolver: letters, digits, '-', '.',
// '_' and '~'. Percent-encoded or other reg-name characters are refused rather than
// guessed at.
bool is_valid_name(std::string_view host) noexcept {
  return std::all_of(host.begin(), host.end(), [](char c) {
    return is_alpha(c) || is_digit(c) || c == '-' || c == '.' || c == '_' || c == '~';
  });
}

bool is_valid_ipv6_literal(std::string_view host) noexcept {
  return !host.empty() && std::all_of(host.begin(), host.end(), [](char c) {
    return hex_value(c) >= 0 || c == ':' || c == '.';
  });
}

struct Authority {
  std::string host;
  std::uint16_t port = 0;
};

// alt-authority = [ uri-host ] ":" port, "[v6]" bracketed.
std::optional<Authority> parse_authority(std::string_view text) {
  std::string_view host;
  std::string_view rest;
  if (!text.empty() && text.front() == '[') {
    const std::size_t close = text.find(']');
    if (close == std::string_view::npos) return std::nullopt;
    host = text.substr(1, close - 1);
    if (!is_valid_ipv6_literal(host)) return std::nullopt;
    rest = text.substr(close + 1);
  } else {
    const std::size_t colon = text.rfind(':');
    if (colon == std::string_view::npos) return std::nullopt;
    host = text.substr(0, colon);
    if (!is_valid_name(host)) return std::nullopt;
    rest = text.substr(colon);
  }
  if (rest.empty() || rest.front() != ':' || host.size() > kMaxHostBytes) return std::nullopt;
  const auto port = parse_port(rest.substr(1));
  if (!port) return std::nullopt;
  Authority authority{std::string(host), *port};
  std::transform(authority.host.begin(), authority.host.end(), authority.host.begin(), to_lower);
  return authority;
}

std::optional<std::chrono::seconds> parse_delta_seconds(std::string_view text) noexcept {
  if (text.empty()) return std::nullopt;
  std::int64_t seconds = 0;
  for (char c : text) {
    if (!is_digit(c)) return std::nullopt;
    seconds = std::min(kMaxAgeCap, seconds * 10 + (c - '0'));
  }
  return std::chrono::seconds(seconds);
}

// Reads `*( OWS ";" OWS parameter )` into the alternative. Only the first "ma" and
// "persist" count; unknown names are skipped once well-formed.
bool parse_parameters(Cursor& cursor, AltSvcAlternative& alternative) {
  bool seen_ma = false;
  bool seen_persist = false;
  for (;;) {
    cursor.skip_ows();
    if (cursor.at_end()) return true;
    if (!cursor.consume(';')) return false;
    cursor.skip_ows();
    const auto name = cursor.parse_token();
    if (!name || !cursor.consume('=')) return false;
    std::string value;
    if (auto quoted = cursor.parse_quoted_string()) {
      value = std::move(*quoted);
    } else if (auto token = cursor.parse_token()) {
      value = std::string(*token);
    } else {
      return false;
    }
    if (equals_ignoring_case(*name, "ma") && !seen_ma) {
      const auto max_age = parse_delta_seconds(value);
      if (!max_age) return false;
      alternative.max_age = *max_age;
      seen_ma = true;
    } else if (equals_ignoring_case(*name, "persist") && !seen_persist) {
      alternative.persist = value == "1";  // other values are to be ignored
      seen_persist = true;
    }
  }
}

// alt-value = protocol-id "=" alt-authority *( OWS ";" OWS parameter )
std::optional<AltSvcAlternative> parse_alternative(std::string_view element) {
  Cursor cursor(element);
  const auto id_token = cursor.parse_token();
  if (!id_token || !cursor.consume('=')) return std::nullopt;
  auto protocol_id = percent_decode(*id_token);
  auto authority_text = cursor.parse_quoted_string();
  if (!protocol_id || protocol_id->empty() || !authority_text) return std::nullopt;
  auto authority = parse_authority(*authority_text);
  if (!authority) return std::nullopt;
  AltSvcAlternative alternative;
  alternative.protocol_id = std::move(*protocol_id);
  alternative.host = std::move(authority->host);
  alternative.port = authority->port;
  if (!parse_parameters(cursor, alternative)) return std::nullopt;
  return alternative;
}

}  // namespace

AltSvcField parse_alt_svc(std::string_view value) {
  AltSvcField field;
  if (value.size() > kAltSvcMaxValueBytes) return field;
  const std::string_view trimmed = trim_ows(value);
  if (trimmed == "clear") {  // case-sensitive (%s"clear")
    field.kind = AltSvcField::Kind::clear;
    return field;
  }
  for (std::string_view element : split_list(trimmed)) {
    element = trim_ows(element);
    if (element.empty()) continue;  // "a, , b" is a list of two
    if (auto alternative = parse_alternative(element)) {
      field.alternatives.push_back(std::move(*alternative));
      if (field.alternatives.size() == kAltSvcMaxAlternatives) break;
    }
  }
  if (!field.alternatives.empty()) field.kind = AltSvcField::Kind::alternatives;
  return field;
}

AltSvcCache::AltSvcCache(std::size_t max_origins)
    : max_origins_(std::max<std::size_t>(1, max_origins)) {}

void AltSvcCache::update(std::string_view origin, std::string_view header_value, TimePoint now) {
  update(origin, parse_alt_svc(header_value), now);
}

void AltSvcCache::update(std::string_view origin, const AltSvcField& field, TimePoint now) {
  // h3 needs TLS; an http origin's Alt-Svc could only lead to a plaintext alternative.
  if (origin.substr(0, 8) != "https://" || field.kind == AltSvcField::Kind::ignored) return;
  std::vector<AltSvcEntry> entries;
  for (const AltSvcAlternative& alternative : field.alternatives) {
    if (alternative.protocol_id != "h3" || alternative.max_age.count() == 0) continue;
    // caddy repeats its h3 entry: one is enough (and one line in a saved file).
    if (std::any_of(entries.begin(), entries.end(), [&](const AltSvcEntry& kept) {
          return kept.host == alternative.host && kept.port == alternative.port;
        })) {
      continue;
    }
    entries.push_back(AltSvcEntry{alternative.host, alternative.port, now + alternative.max_age});
    if (entries.size() == kMaxEntriesPerOrigin) break;
  }
  const auto found = origins_.find(origin);
  if (entries.empty()) {
    if (found == origins_.end()) return;
    found->second.entries.clear();
    if (!found->second.broken_until) origins_.erase(found);
    return;
  }
  record_for(origin, now).entries = std::move(entries);
}

std::optional<AltSvcEntry> AltSvcCache::lookup(std::string_view origin, TimePoint now) {
  const auto found = origins_.find(origin);
  if (found == origins_.end()) return std::nullopt;
  OriginRecord& record = found->second;
  if (record.broken_until && now < *record.broken_until) return std::nullopt;
  if (drop_expired(record, now)) {
    origins_.erase(found);
    return std::nullopt;
  }
  if (record.entries.empty()) return std::nullopt;
  return record.entries.front();
}

void AltSvcCache::mark_broken(std::string_view origin, TimePoint now,
                              std::chrono::nanoseconds for_duration) {
  record_for(origin, now).broken_until = now + for_duration;
}

bool AltSvcCache::is_broken(std::string_view origin, TimePoint now) const {
  const auto found = origins_.find(origin);
  return found != origins_.end() && found->second.broken_until && now < *found->second.broken_until;
}

std::vector<AltSvcCache::Saved> AltSvcCache::saved(TimePoint now) const {
  std::vector<Saved> out;
  for (const auto& [origin, record] : origins_) {
    for (const AltSvcEntry& entry : record.entries) {
      if (entry.expires > now) out.push_back({origin, entry});
    }
  }
  return out;
}

void AltSvcCache::restore(std::string_view origin, AltSvcEntry entry, TimePoint now) {
  if (origin.substr(0, 8) != "https://" || entry.expires <= now || entry.port == 0) return;
  OriginRecord& record = record_for(origin, now);
  const bool known = std::any_of(
      record.entries.begin(), record.entries.end(),
      [&](const auto& kept) { return kept.host == entry.host && kept.port == entry.port; });
  if (!known && record.entries.size() < kMaxEntriesPerOrigin) {
    record.entries.push_back(std::move(entry));
  }
}

AltSvcCache::OriginRecord& AltSvcCache::record_for(std::string_view origin, TimePoint now) {
  auto found = origins_.find(origin);
  if (found == origins_.end()) {
    if (origins_.size() >= max_origins_) make_room(now);
    found = origins_.emplace(std::string(origin), OriginRecord{}).first;
  }
  found->second.touched = next_touch_++;
  return found->second;
}

// Dead records go first; only when every record still matters does the one updated
// longest ago leave. O(origins), and only when the cache is full.
void AltSvcCache::make_room(TimePoint now) {
  for (auto it = origins_.begin(); it != origins_.end();) {
    it = drop_expired(it->second, now) ? origins_.erase(it) : std::next(it);
  }
  while (origins_.size() >= max_origins_) {
    const auto oldest = std::min_element(
        origins_.begin(), origins_.end(),
        [](const auto& a, const auto& b) { return a.second.touched < b.second.touched; });
    origins_.erase(oldest);
  }
}

// Drops expired entries and a lapsed broken mark; true when nothing is left.
bool AltSvcCache::drop_expired(OriginRecord& record, TimePoint now) {
  std::erase_if(record.entries, [now](const AltSvcEntry& entry) { return entry.expires <= now; });
  if (record.broken_until && *record.broken_until <= now) record.broken_until.reset();
  return record.entries.empty() && !record.broken_until;
}

}  // namespace sluice
