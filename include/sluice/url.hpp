#pragma once
/// @file
/// A strict absolute-URL parser for http and https, with relative resolution for
/// redirects (RFC 3986 section 5).

#include <cstdint>
#include <string>
#include <string_view>

#include "sluice/error.hpp"
#include "sluice/export.h"

namespace sluice {

/// A parsed http(s) URL. Components are stored as they go on the wire: the host is
/// lowercased (IPv6 literals without brackets), an internationalized name (IDN) in its
/// ASCII form (UTS #46 non-transitional, as curl and browsers convert: "Bücher.example"
/// becomes "xn--bcher-kva.example"), the path keeps its percent-encoding (invalid
/// characters such as spaces are percent-encoded on parse).
struct SLUICE_API Url {
  std::string scheme;      ///< "http" or "https"
  std::string userinfo;    ///< "user:pass" (still percent-encoded), usually empty
  std::string host;        ///< "example.org", "127.0.0.1", "::1" (no brackets)
  std::uint16_t port = 0;  ///< always set: 80/443 when the URL gave none
  std::string path;        ///< starts with '/', never empty
  std::string query;       ///< without the '?', empty when absent
  bool has_query = false;  ///< "?"-with-empty-query differs from no query
  std::string fragment;    ///< without the '#'; never sent

  /// Parses an absolute http or https URL. Errors (category usage) say what is wrong:
  /// "URL: unsupported scheme 'ftp' (only http and https)"; a host name that does not
  /// convert to ASCII (IDN) is ErrorCode::bad_url naming the host.
  static Result<Url> parse(std::string_view text);

  /// Resolves a reference (a Location header value) against this URL.
  Result<Url> resolve(std::string_view reference) const;

  bool is_https() const noexcept { return scheme == "https"; }
  bool is_ipv6_literal() const noexcept;
  bool has_default_port() const noexcept;
  /// The Host header value: host (bracketed if IPv6) plus ":port" unless default.
  std::string authority() const;
  /// Path plus "?query": what goes in an HTTP/1.1 request line.
  std::string target() const;
  /// "scheme://authority": equal origins share connections.
  std::string origin() const;
  /// The whole URL without the fragment.
  std::string to_string() const;
  /// to_string() with the host in Unicode for people to read: "http://bücher.example/"
  /// where to_string() gives "http://xn--bcher-kva.example/" (a label that does not
  /// decode stays as it is).
  std::string to_display_string() const;
  /// This URL less its userinfo (user:password): what may be shown, logged, sent as a
  /// Referer or kept in a file others read. Everything else, the fragment too, stays.
  Url without_credentials() const;

 private:
  void append_authority(std::string& out) const;
};

/// `url` as it may be shown or kept: Url::without_credentials() of it as text (so,
/// as to_string() writes it, normalized and without a fragment), or `url` unchanged
/// when it carries no user:password or does not parse. For progress lines, messages
/// and a download's control file.
SLUICE_API std::string url_without_credentials(std::string_view url);

}  // namespace sluice
