// Fuzz target: the Alt-Svc file (--alt-svc FILE, ClientOptions::state.alt_svc_file):
// parse_alt_svc_file and format_alt_svc_file (src/web/alt_svc_file), and the file's
// way through a Client: read into its AltSvcCache, written back from it
// (src/client/state_files). The file is on disk between runs, so anything may be in
// it: curl's file, a cut write, another program's. (The Alt-Svc header has its own
// target, alt_svc.)
// Input: a byte for the cache's size (1 + byte % 64 origins), a byte for the wall
// clock (byte * 2^24 s, from 1970 to 2105; 255: the year 9999), then the file's text.
// Invariants checked: every line is an entry or skipped with a reason, never both;
// hosts are lowercase without brackets, ports not 0; format_alt_svc_file then parse
// gives the same entries and skips nothing; the cache saves only alternatives of the
// file (its ports), none expired, none beyond 2^31 s (as a header's ma is capped);
// the file it saves, loaded and saved again, is the same.

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "fuzz_input.hpp"
#include "fuzz_state_file.hpp"
#include "web/alt_svc_file.hpp"

namespace {

using sluice::AltSvcFileContents;
using sluice::AltSvcFileEntry;
using sluice::UnixSeconds;
using sluice::fuzz::check;
using sluice::fuzz::FuzzInput;

bool same(const AltSvcFileEntry& a, const AltSvcFileEntry& b) {
  return a.host == b.host && a.port == b.port && a.alt_host == b.alt_host &&
         a.alt_port == b.alt_port && a.expires == b.expires && a.persist == b.persist;
}

bool lowercase_host(const std::string& host) {
  if (host.empty() || host.starts_with('[')) return false;
  for (const char c : host) {
    if (c >= 'A' && c <= 'Z') return false;
  }
  return true;
}

void check_parsed(const AltSvcFileContents& contents, std::string_view text) {
  check(contents.entries.size() + contents.skipped.size() == sluice::fuzz::content_lines(text),
        "each line is an entry or skipped");
  for (const auto& skipped : contents.skipped) check(!skipped.reason.empty(), "a skip says why");
  for (const AltSvcFileEntry& entry : contents.entries) {
    check(lowercase_host(entry.host) && lowercase_host(entry.alt_host), "hosts are lowercase");
    check(entry.port != 0 && entry.alt_port != 0, "ports are 1 to 65535");
  }
  const AltSvcFileContents again =
      sluice::parse_alt_svc_file(sluice::format_alt_svc_file(contents.entries));
  check(again.skipped.empty(), "a formatted Alt-Svc file skips nothing");
  check(again.entries.size() == contents.entries.size(),
        "a formatted Alt-Svc file keeps each entry");
  for (std::size_t i = 0; i < again.entries.size(); ++i) {
    check(same(again.entries[i], contents.entries[i]), "format then parse gives the entry back");
  }
}

void check_saved(const AltSvcFileContents& loaded, std::string_view saved, UnixSeconds wall_now) {
  const AltSvcFileContents contents = sluice::parse_alt_svc_file(saved);
  check(contents.skipped.empty(), "a saved Alt-Svc file skips nothing");
  for (const AltSvcFileEntry& entry : contents.entries) {
    check(entry.expires > wall_now, "an expired alternative is not saved");
    check(entry.expires <= wall_now + (UnixSeconds{1} << 31), "a saved lifetime is capped");
    bool from_file = false;
    for (const AltSvcFileEntry& original : loaded.entries) {
      from_file |= original.port == entry.port && original.alt_port == entry.alt_port &&
                   original.expires >= entry.expires;
    }
    check(from_file, "a saved alternative was in the file");
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  FuzzInput in(data, size);
  const sluice::fuzz::StateFileInput input = sluice::fuzz::read_state_file_input(in);
  const AltSvcFileContents contents = sluice::parse_alt_svc_file(input.text);
  check_parsed(contents, input.text);
  const std::string saved = sluice::fuzz::check_saved_file_is_stable(
      sluice::fuzz::StateFileKind::alt_svc, input.text, input.capacity, input.wall_now);
  check_saved(contents, saved, input.wall_now);
  return 0;
}
