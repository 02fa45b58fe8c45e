#pragma once
// HTTP/3 header mapping: an ExchangeRequest becomes the nghttp3_nv list of a request
// HEADERS frame, and a received response field section is checked and collected into
// a ResponseHead (the HTTP/3 sibling of http2/h2_headers.hpp).
// Ownership: plain values, built and used on the HTTP thread by H3Session.

#include <nghttp3/nghttp3.h>

#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "io/connection.hpp"
#include "sluice/error.hpp"
#include "sluice/headers.hpp"

namespace sluice {

/// The request's fields as HTTP/3 wants them: pseudo-headers first, names lowercased,
/// connection-specific fields dropped (RFC 9114 section 4.2), content-length from the
/// body when known. Owns the strings its nghttp3_nv entries point into; nghttp3
/// copies them in nghttp3_conn_submit_request, so it must live until that call.
class H3RequestHeaders {
 public:
  explicit H3RequestHeaders(const ExchangeRequest& request);
  H3RequestHeaders(const H3RequestHeaders&) = delete;
  H3RequestHeaders& operator=(const H3RequestHeaders&) = delete;

  std::span<const nghttp3_nv> nv() const noexcept { return nv_; }
  /// The fields in order (pseudo-headers included), for tests and tracing.
  const std::vector<Header>& fields() const noexcept { return fields_; }

 private:
  void add(std::string name, std::string value);

  std::vector<Header> fields_;
  std::vector<nghttp3_nv> nv_;
};

/// Whether an HTTP/1-style field must not appear in an HTTP/3 request.
bool is_h3_connection_specific_field(std::string_view lowercase_name,
                                     std::string_view value) noexcept;

/// Collects one received field section (a response head, an interim 1xx head or
/// trailers) field by field and enforces the caller's size limit. nghttp3 0.8 only
/// announces SETTINGS_MAX_FIELD_SECTION_SIZE and never enforces it, so this is the
/// limit; nghttp3's own HTTP messaging checks run before a field reaches it.
class H3HeaderBlock {
 public:
  explicit H3HeaderBlock(std::size_t max_bytes = 256 * 1024) : max_bytes_(max_bytes) {}

  /// Starts a new section.
  void reset() noexcept;
  /// One field as nghttp3 decoded it. Errors: the section grew past the limit
  /// (too_large), or a pseudo-header other than a valid :status (protocol).
  Result<void> add(std::string_view name, std::string_view value);

  /// The :status of the section, when it had one.
  std::optional<int> status() const noexcept { return status_; }
  const Headers& fields() const noexcept { return fields_; }
  Headers take_fields() { return std::move(fields_); }
  /// Size as HTTP/3 counts it (RFC 9114 section 4.2.2: name + value + 32 per field).
  std::size_t size() const noexcept { return size_; }
  std::size_t max_bytes() const noexcept { return max_bytes_; }

 private:
  std::size_t max_bytes_;
  std::size_t size_ = 0;
  std::optional<int> status_;
  Headers fields_;
};

/// The content-length of a response head, when it has one that parses.
std::optional<std::uint64_t> h3_content_length(const Headers& fields);

}  // namespace sluice
