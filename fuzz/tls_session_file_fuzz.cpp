// Fuzz target: the TLS session file (--ssl-sessions FILE,
// ClientOptions::state.tls_session_file): parse_tls_session_file and
// format_tls_session_file (src/tls/tls_session_file), and the file's way through a
// Client: its sessions go to the TLS session cache (OpenSSL's d2i_SSL_SESSION reads
// the DER), the QUIC ticket store or are carried through, and are written back
// (src/client/tls_session_state, src/client/state_files). The file is on disk
// between runs, so anything may be in it.
// Input: a flags byte (bit 0: an HTTP/3 connection adopts the QUIC sessions; the
// rest: the caches' size, 1 + (byte >> 1) % 16), then the file's text. The Client's
// settings name is 0123456789abcdef; the wall clock is the real one (OpenSSL's
// session expiry is read against it).
// Invariants checked: every line is an entry or skipped with a reason, never both; an
// entry has a session, a hex settings name and a host:port origin; format then parse
// gives the same entries and skips nothing; the saved file skips nothing, holds no
// expired session and only origins of the file; the file it saves, loaded and saved
// again, is the same.

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "fuzz_input.hpp"
#include "fuzz_state_file.hpp"
#include "tls/tls_session_file.hpp"

namespace {

using sluice::TlsSessionFileContents;
using sluice::TlsSessionFileEntry;
using sluice::UnixSeconds;
using sluice::fuzz::check;
using sluice::fuzz::FuzzInput;

bool same(const TlsSessionFileEntry& a, const TlsSessionFileEntry& b) {
  return a.kind == b.kind && a.settings == b.settings && a.origin == b.origin &&
         a.expires == b.expires && a.session == b.session &&
         a.transport_params == b.transport_params;
}

void check_parsed(const TlsSessionFileContents& contents, std::string_view text) {
  check(contents.entries.size() + contents.skipped.size() == sluice::fuzz::content_lines(text),
        "each line is an entry or skipped");
  for (const auto& skipped : contents.skipped) check(!skipped.reason.empty(), "a skip says why");
  for (const TlsSessionFileEntry& entry : contents.entries) {
    check(!entry.session.empty(), "an entry has a session");
    check(!entry.settings.empty(), "an entry names its settings");
    check(entry.origin.rfind(':') != std::string::npos, "an origin is host:port");
    check(entry.expires > 0, "an entry expires after 1970");
  }
  const TlsSessionFileContents again =
      sluice::parse_tls_session_file(sluice::format_tls_session_file(contents.entries));
  check(again.skipped.empty(), "a formatted TLS session file skips nothing");
  check(again.entries.size() == contents.entries.size(), "a formatted file keeps each entry");
  for (std::size_t i = 0; i < again.entries.size(); ++i) {
    check(same(again.entries[i], contents.entries[i]), "format then parse gives the entry back");
  }
}

void check_saved(const TlsSessionFileContents& loaded, std::string_view saved,
                 UnixSeconds wall_now) {
  const TlsSessionFileContents contents = sluice::parse_tls_session_file(saved);
  check(contents.skipped.empty(), "a saved TLS session file skips nothing");
  for (const TlsSessionFileEntry& entry : contents.entries) {
    check(entry.expires > wall_now, "an expired session is not saved");
    bool from_file = false;
    for (const TlsSessionFileEntry& original : loaded.entries) {
      from_file |= original.origin == entry.origin && original.kind == entry.kind;
    }
    check(from_file, "a saved session's origin was in the file");
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  FuzzInput in(data, size);
  const std::uint8_t flags = in.byte();
  const bool adopt_quic = (flags & 1) != 0;
  const std::size_t capacity = 1 + (flags >> 1) % 16;
  const std::string_view text = in.take(in.size());
  const TlsSessionFileContents contents = sluice::parse_tls_session_file(text);
  check_parsed(contents, text);
  const UnixSeconds wall_now = sluice::wall_clock_now();
  const std::string saved = sluice::fuzz::check_saved_file_is_stable(
      sluice::fuzz::StateFileKind::tls_sessions, text, capacity, wall_now, adopt_quic);
  check_saved(contents, saved, wall_now);
  return 0;
}
