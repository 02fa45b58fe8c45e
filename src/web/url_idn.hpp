#pragma once
// Internationalized host names (IDNA): the ASCII form (A-labels, "xn--...") that
// DNS, the Host header, SNI, cookies and certificate checks use, and the Unicode
// form shown to people. UTS #46 processing through libidn2, as curl does it.
//
// Ownership: free functions; libidn2 keeps no state between calls, so any thread.

#include <string>
#include <string_view>

#include "sluice/error.hpp"

namespace sluice::url_detail {

/// True when `host` holds a byte outside ASCII, so it needs to_ascii_host().
bool needs_idna(std::string_view host) noexcept;

/// The A-label form of a UTF-8 host name: "Bücher.example" -> "xn--bcher-kva.example".
/// UTS #46 non-transitional processing first (so "ß" stays itself), then transitional
/// (IDNA 2003 compatibility), as curl 7.88 does. A name neither accepts is
/// ErrorCode::bad_url naming the host and libidn2's reason.
Result<std::string> to_ascii_host(std::string_view host, std::string_view input);

/// The Unicode form of an ASCII host for display: "xn--bcher-kva.example" ->
/// "bücher.example". A host without "xn--" labels, or one that does not decode,
/// comes back as it is.
std::string to_unicode_host(const std::string& host);

}  // namespace sluice::url_detail
