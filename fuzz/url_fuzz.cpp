// Fuzz target: sluice::Url::parse on the first line of the input, then Url::resolve
// of the second line (a Location value) against it. Server bytes reach resolve()
// through every redirect.
// Invariants checked: what parses is an http(s) URL whose request target and
// authority hold no byte that could split a request line or header (controls,
// space, DEL), and whose to_string() parses back to the same URL.

#include <cstddef>
#include <cstdint>
#include <string_view>

#include "fuzz_input.hpp"
#include "sluice/url.hpp"

namespace {

using sluice::Url;
using sluice::fuzz::check;

bool wire_safe(std::string_view text) {
  for (char c : text) {
    const auto byte = static_cast<unsigned char>(c);
    if (byte <= 0x20 || byte == 0x7f) return false;
  }
  return true;
}

bool same_url(const Url& a, const Url& b) {
  return a.scheme == b.scheme && a.userinfo == b.userinfo && a.host == b.host && a.port == b.port &&
         a.path == b.path && a.query == b.query && a.has_query == b.has_query;
}

void check_url(const Url& url) {
  check(url.scheme == "http" || url.scheme == "https", "Url scheme is http or https");
  check(!url.path.empty() && url.path.front() == '/', "Url path starts with '/'");
  check(wire_safe(url.target()), "Url::target() holds no control byte or space");
  check(wire_safe(url.authority()), "Url::authority() holds no control byte or space");
  const auto again = Url::parse(url.to_string());
  check(again.ok(), "Url::to_string() parses again");
  check(same_url(url, *again), "Url::to_string() parses back to the same URL");
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  sluice::fuzz::FuzzInput input(data, size);
  const std::string_view base_text = input.line();
  const std::string_view reference = input.rest();
  auto base = Url::parse(base_text);
  if (!base) return 0;
  check_url(*base);
  auto resolved = base->resolve(reference);
  if (resolved) check_url(*resolved);
  return 0;
}
