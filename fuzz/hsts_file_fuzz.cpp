// Fuzz target: the HSTS file (--hsts FILE, ClientOptions::state.hsts_file):
// parse_hsts_file and format_hsts_file (src/web/hsts_file), and the file's way through
// a Client: read into its HstsStore, written back from it (src/client/state_files).
// The file is on disk between runs, so anything may be in it: curl's file, a cut
// write, another program's.
// Input: a byte for the store's size (1 + byte % 64 hosts), a byte for the wall
// clock (byte * 2^24 s, from 1970 to 2105; 255: the year 9999), then the file's text.
// Invariants checked: every line is an entry or skipped with a reason, never both;
// an entry's host is lowercase, without a trailing dot, and not an IP address;
// format_hsts_file then parse gives the same entries and skips nothing; the store
// keeps at most its size, only hosts of the file, none expired, and each host it
// keeps applies to itself; the file it saves, loaded and saved again, is the same.

#include <cstddef>
#include <cstdint>
#include <set>
#include <string>
#include <string_view>

#include "fuzz_input.hpp"
#include "fuzz_state_file.hpp"
#include "web/hsts_file.hpp"

namespace {

using sluice::HstsFileContents;
using sluice::HstsStore;
using sluice::UnixSeconds;
using sluice::fuzz::check;
using sluice::fuzz::FuzzInput;

bool same(const HstsStore::Entry& a, const HstsStore::Entry& b) {
  return a.host == b.host && a.include_subdomains == b.include_subdomains && a.expires == b.expires;
}

void check_parsed(const HstsFileContents& contents, std::string_view text) {
  check(contents.entries.size() + contents.skipped.size() == sluice::fuzz::content_lines(text),
        "each line is an entry or skipped");
  for (const auto& skipped : contents.skipped) check(!skipped.reason.empty(), "a skip says why");
  for (const HstsStore::Entry& entry : contents.entries) {
    check(!entry.host.empty() && !entry.host.ends_with('.'), "a host has no trailing dot");
    check(entry.host == sluice::hsts_host_key(entry.host), "a host is as the store keys it");
  }
  const HstsFileContents again =
      sluice::parse_hsts_file(sluice::format_hsts_file(contents.entries));
  check(again.skipped.empty(), "a formatted HSTS file skips nothing");
  check(again.entries.size() == contents.entries.size(), "a formatted HSTS file keeps each entry");
  for (std::size_t i = 0; i < again.entries.size(); ++i) {
    check(same(again.entries[i], contents.entries[i]), "format then parse gives the entry back");
  }
}

void check_saved(const HstsFileContents& loaded, std::string_view saved, std::size_t capacity,
                 UnixSeconds wall_now) {
  const HstsFileContents contents = sluice::parse_hsts_file(saved);
  check(contents.skipped.empty(), "a saved HSTS file skips nothing");
  check(contents.entries.size() <= capacity, "the store keeps at most its size");
  HstsStore store(capacity);
  std::set<std::string> hosts;
  for (const HstsStore::Entry& entry : contents.entries) {
    check(hosts.insert(entry.host).second, "a host is saved once");
    check(entry.expires > wall_now, "an expired host is not saved");
    bool from_file = false;
    for (const HstsStore::Entry& original : loaded.entries) from_file |= same(original, entry);
    check(from_file, "a saved host was in the file");
    store.restore(entry, wall_now);
    check(store.applies_to(entry.host, wall_now), "a kept host applies to itself");
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  FuzzInput in(data, size);
  const sluice::fuzz::StateFileInput input = sluice::fuzz::read_state_file_input(in);
  const HstsFileContents contents = sluice::parse_hsts_file(input.text);
  check_parsed(contents, input.text);
  const std::string saved = sluice::fuzz::check_saved_file_is_stable(
      sluice::fuzz::StateFileKind::hsts, input.text, input.capacity, input.wall_now);
  check_saved(contents, saved, input.capacity, input.wall_now);
  return 0;
}
