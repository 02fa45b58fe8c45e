// Fuzz target: parse_alt_svc (src/web/alt_svc) and the AltSvcCache it feeds.
// Input: lines, each one Alt-Svc value received from an origin. A line's first byte
// chooses the origin (low 2 bits: three https origins and an http one) and how many
// seconds pass before it (the other bits, times 1000), and bit 7 of the second byte
// marks that origin broken for a while after the update.
// Invariants checked: the parser's documented bounds (at most 32 alternatives, port
// never 0, max-age capped at 2^31 s, no empty protocol id) and that an alternative's
// host is a lowercase name or address with no byte that could reach DNS or a log as
// something else; the cache never holds more origins than its bound, and its lookups
// name a port and a host from an h3 alternative.

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "fuzz_input.hpp"
#include "web/alt_svc.hpp"

namespace {

using sluice::AltSvcField;
using sluice::fuzz::check;

constexpr std::string_view kOrigins[] = {"https://a.example", "https://b.example:8443",
                                         "https://[::1]:443", "http://plain.example"};
constexpr std::size_t kMaxOrigins = 2;

bool host_is_clean(std::string_view host) {
  if (host.size() > 253) return false;
  for (char c : host) {
    const auto byte = static_cast<unsigned char>(c);
    if (byte <= 0x20 || byte >= 0x7f || (c >= 'A' && c <= 'Z') || c == '[' || c == ']' ||
        c == '/' || c == '@') {
      return false;
    }
  }
  return true;
}

void check_field(const AltSvcField& field) {
  check(field.alternatives.size() <= sluice::kAltSvcMaxAlternatives,
        "parse_alt_svc keeps at most 32 alternatives");
  check((field.kind == AltSvcField::Kind::alternatives) == !field.alternatives.empty(),
        "kind alternatives exactly when some alternative parsed");
  for (const auto& alternative : field.alternatives) {
    check(alternative.port != 0, "a parsed alternative's port is never 0");
    check(!alternative.protocol_id.empty(), "a parsed alternative has a protocol id");
    check(
        alternative.max_age.count() >= 0 && alternative.max_age.count() <= (std::int64_t{1} << 31),
        "max-age is capped at 2^31 s");
    check(host_is_clean(alternative.host), "an alternative's host is a clean lowercase name");
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  sluice::fuzz::FuzzInput input(data, size);
  sluice::AltSvcCache cache(kMaxOrigins);
  sluice::TimePoint now{};
  while (!input.empty()) {
    const std::string_view text = input.line();
    if (text.empty()) continue;
    const auto control = static_cast<std::uint8_t>(text[0]);
    const std::string_view origin = kOrigins[control & 3];
    const bool mark_broken = text.size() > 1 && (static_cast<std::uint8_t>(text[1]) & 0x80) != 0;
    const std::string_view value = text.substr(1);
    now += std::chrono::seconds(std::int64_t{control >> 2} * 1000);

    const AltSvcField field = sluice::parse_alt_svc(value);
    check_field(field);
    cache.update(origin, field, now);
    if (mark_broken) cache.mark_broken(origin, now, std::chrono::seconds(300));
    check(cache.origin_count() <= kMaxOrigins, "the cache holds at most max_origins origins");
    for (std::string_view asked : kOrigins) {
      const auto entry = cache.lookup(asked, now);
      if (!entry) continue;
      check(entry->port != 0, "a cached entry has a port");
      check(entry->expires > now, "lookup returns only live entries");
      check(host_is_clean(entry->host), "a cached entry's host is clean");
    }
  }
  return 0;
}
