#include "client/state_files.hpp"

#include <algorithm>
#include <chrono>
#include <optional>

#include "core/state_file.hpp"
#include "sluice/url.hpp"
#include "web/alt_svc_file.hpp"
#include "web/hsts_file.hpp"

namespace sluice {
namespace {

constexpr const char* kAltSvcWhat = "alt-svc file";
constexpr const char* kHstsWhat = "hsts file";
constexpr const char* kTlsSessionWhat = "tls session file";

// The file's text, or nullopt (missing, or unreadable: traced).
std::optional<std::string> read_or_trace(const char* what, const std::string& path,
                                         const Trace& trace) {
  auto text = read_state_file(what, path);
  if (!text) {
    if (trace.on()) trace.emit(text.error().message() + " (ignored)");
    return std::nullopt;
  }
  return std::move(*text);
}

void trace_skipped(const char* what, const std::string& path,
                   const std::vector<SkippedLine>& skipped, const Trace& trace) {
  if (!trace.on()) return;
  for (const SkippedLine& line : skipped) {
    trace.emit(std::string(what) + " " + path + ":" + std::to_string(line.line) +
               ": skipped: " + line.reason);
  }
}

// Through the URL parser, so that the key is the one a request's URL gives: an
// address is written as lookups write it ([2001:db8::0] is [2001:db8::]).
// Nothing for a host no URL can have ("[1:2]" passes the file's character check):
// no request would ever look it up.
std::optional<std::string> https_origin(const std::string& host, std::uint16_t port) {
  const bool ipv6 = host.find(':') != std::string::npos;
  const std::string authority = (ipv6 ? "[" + host + "]" : host) + ":" + std::to_string(port);
  auto url = Url::parse("https://" + authority + "/");
  if (!url) return std::nullopt;
  return url->origin();
}

void load_alt_svc(const std::string& path, AltSvcCache& cache, TimePoint now, UnixSeconds wall_now,
                  const Trace& trace) {
  const auto text = read_or_trace(kAltSvcWhat, path, trace);
  if (!text) return;
  const AltSvcFileContents contents = parse_alt_svc_file(*text);
  trace_skipped(kAltSvcWhat, path, contents.skipped, trace);
  for (const AltSvcFileEntry& entry : contents.entries) {
    if (entry.expires <= wall_now) continue;
    AltSvcEntry alternative;
    // The origin's own host is kept as "" (see AltSvcEntry::host_or).
    if (entry.alt_host != entry.host) alternative.host = entry.alt_host;
    alternative.port = entry.alt_port;
    // Capped as a header's "ma" is (2^31 s): a file's far-future date (up to the year
    // 9999) would overflow the steady clock's nanoseconds.
    constexpr UnixSeconds kLongestLife = UnixSeconds{1} << 31;
    alternative.expires =
        now + std::chrono::seconds(std::min(entry.expires - wall_now, kLongestLife));
    if (auto origin = https_origin(entry.host, entry.port)) {
      cache.restore(*origin, std::move(alternative), now);
    }
  }
}

std::string alt_svc_text(const AltSvcCache& cache, TimePoint now, UnixSeconds wall_now) {
  std::vector<AltSvcFileEntry> entries;
  for (const AltSvcCache::Saved& saved : cache.saved(now)) {
    auto origin = Url::parse(saved.origin);
    if (!origin) continue;
    AltSvcFileEntry entry;
    entry.host = origin->host;
    entry.port = origin->port;
    entry.alt_host = std::string(saved.entry.host_or(origin->host));
    entry.alt_port = saved.entry.port;
    entry.expires =
        wall_now + std::chrono::ceil<std::chrono::seconds>(saved.entry.expires - now).count();
    entries.push_back(std::move(entry));
  }
  return format_alt_svc_file(entries);
}

void load_hsts(const std::string& path, HstsStore& store, UnixSeconds wall_now,
               const Trace& trace) {
  const auto text = read_or_trace(kHstsWhat, path, trace);
  if (!text) return;
  HstsFileContents contents = parse_hsts_file(*text);
  trace_skipped(kHstsWhat, path, contents.skipped, trace);
  for (HstsStore::Entry& entry : contents.entries) store.restore(std::move(entry), wall_now);
}

void load_tls_sessions(const std::string& path, StateCaches caches, UnixSeconds wall_now,
                       const Trace& trace) {
  const auto text = read_or_trace(kTlsSessionWhat, path, trace);
  if (!text) return;
  TlsSessionFileContents contents = parse_tls_session_file(*text);
  trace_skipped(kTlsSessionWhat, path, contents.skipped, trace);
  caches.tls_sessions->load(std::move(contents.entries), *caches.tcp_sessions, wall_now);
}

}  // namespace

UnixSeconds wall_clock_now() {
  return std::chrono::duration_cast<std::chrono::seconds>(
             std::chrono::system_clock::now().time_since_epoch())
      .count();
}

void load_state_files(const StateFileOptions& options, StateCaches caches, TimePoint now,
                      UnixSeconds wall_now, const Trace& trace) {
  if (!options.alt_svc_file.empty()) {
    load_alt_svc(options.alt_svc_file, caches.alt_svc, now, wall_now, trace);
  }
  if (caches.hsts != nullptr && !options.hsts_file.empty()) {
    load_hsts(options.hsts_file, *caches.hsts, wall_now, trace);
  }
  if (caches.tls_sessions != nullptr && !options.tls_session_file.empty()) {
    load_tls_sessions(options.tls_session_file, caches, wall_now, trace);
  }
}

std::vector<StateFileText> snapshot_state_files(const StateFileOptions& options, StateCaches caches,
                                                TimePoint now, UnixSeconds wall_now) {
  std::vector<StateFileText> files;
  if (!options.alt_svc_file.empty()) {
    files.push_back(
        {kAltSvcWhat, options.alt_svc_file, alt_svc_text(caches.alt_svc, now, wall_now)});
  }
  if (caches.hsts != nullptr && !options.hsts_file.empty()) {
    files.push_back(
        {kHstsWhat, options.hsts_file, format_hsts_file(caches.hsts->entries(wall_now))});
  }
  if (caches.tls_sessions != nullptr && !options.tls_session_file.empty()) {
    files.push_back(
        {kTlsSessionWhat, options.tls_session_file,
         caches.tls_sessions->text(*caches.tcp_sessions, caches.quic_sessions, wall_now)});
  }
  return files;
}

Result<void> write_state_files(const std::vector<StateFileText>& files) {
  Result<void> first;
  for (const StateFileText& file : files) {
    auto written = replace_state_file(file.what, file.path, file.text);
    if (!written && first) first = std::move(written);
  }
  return first;
}

}  // namespace sluice
