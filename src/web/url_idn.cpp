// IDNA for URL hosts over libidn2 (see url_idn.hpp).
//
// Ownership: stateless free functions; any thread.

#include "web/url_idn.hpp"

#include <idn2.h>

#include <cstdint>
#include <memory>

#include "core/message_text.hpp"
#include "web/url_parse.hpp"

namespace sluice::url_detail {
namespace {

// libidn2 allocates its results with malloc; they are freed with idn2_free.
struct Idn2Free {
  void operator()(char* text) const noexcept { idn2_free(text); }
};
using Idn2String = std::unique_ptr<char, Idn2Free>;

struct Lookup {
  int rv = IDN2_OK;
  Idn2String ascii;
};

Lookup lookup(const std::string& host, int flags) {
  std::uint8_t* out = nullptr;
  Lookup result;
  result.rv = idn2_lookup_u8(reinterpret_cast<const std::uint8_t*>(host.c_str()), &out, flags);
  result.ascii.reset(reinterpret_cast<char*>(out));
  return result;
}

// `host` is lowercase, as Url keeps it.
bool has_ace_label(std::string_view host) noexcept {
  std::size_t start = 0;
  while (start <= host.size()) {
    if (host.substr(start, 4) == "xn--") return true;
    const auto dot = host.find('.', start);
    if (dot == std::string_view::npos) return false;
    start = dot + 1;
  }
  return false;
}

}  // namespace

bool needs_idna(std::string_view host) noexcept {
  for (char ch : host) {
    if (static_cast<unsigned char>(ch) >= 0x80) return true;
  }
  return false;
}

Result<std::string> to_ascii_host(std::string_view host, std::string_view input) {
  const std::string name(host);  // libidn2 takes a NUL-terminated string
  // Non-transitional is UTS #46 as browsers apply it today; the transitional retry
  // accepts what IDNA 2003 did and 2008 refuses (curl's order).
  auto converted = lookup(name, IDN2_NFC_INPUT | IDN2_NONTRANSITIONAL);
  if (converted.rv != IDN2_OK) {
    auto transitional = lookup(name, IDN2_NFC_INPUT | IDN2_TRANSITIONAL);
    if (transitional.rv == IDN2_OK) converted = std::move(transitional);
  }
  if (converted.rv != IDN2_OK || !converted.ascii) {
    return url_error("host name '" + printable(host) + "' is not a valid international name", input,
                     idn2_strerror(converted.rv));
  }
  return to_lower(converted.ascii.get());
}

std::string to_unicode_host(const std::string& host) {
  if (!has_ace_label(host)) return host;
  char* out = nullptr;
  if (idn2_to_unicode_8z8z(host.c_str(), &out, 0) != IDN2_OK || out == nullptr) {
    idn2_free(out);
    return host;
  }
  const Idn2String unicode(out);
  return unicode.get();
}

}  // namespace sluice::url_detail
