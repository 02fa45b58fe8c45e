#pragma once
// HTTP/2 header mapping: an ExchangeRequest becomes the nghttp2_nv list of a request
// HEADERS frame, and a received response field list is checked and collected into
// a ResponseHead.
// Ownership: plain values, built and used on the HTTP thread by H2Session.

#include <nghttp2/nghttp2.h>

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

/// The request's fields as HTTP/2 wants them: pseudo-headers first, names lowercased,
/// connection-specific fields dropped (RFC 9113 section 8.2.2), content-length from
/// the body when known. Owns the strings its nghttp2_nv entries point into, so it
/// must outlive the nghttp2_submit_request call (nghttp2 copies them there).
class H2RequestHeaders {
 public:
  explicit H2RequestHeaders(const ExchangeRequest& request);
  H2RequestHeaders(const H2RequestHeaders&) = delete;
  H2RequestHeaders& operator=(const H2RequestHeaders&) = delete;

  std::span<const nghttp2_nv> nv() const noexcept { return nv_; }
  /// The fields in order (pseudo-headers included), for tests and tracing.
  const std::vector<Header>& fields() const noexcept { return fields_; }

 private:
  void add(std::string name, std::string value);

  std::vector<Header> fields_;
  std::vector<nghttp2_nv> nv_;
};

/// Whether an HTTP/1-style field must not appear in an HTTP/2 request.
bool is_connection_specific_field(std::string_view lowercase_name, std::string_view value) noexcept;

/// Collects one received header block (a response head, an interim 1xx head or
/// trailers) field by field and enforces the caller's size limit. nghttp2's HTTP
/// messaging checks run first; this adds the limit and the :status parse.
class H2HeaderBlock {
 public:
  explicit H2HeaderBlock(std::size_t max_bytes = 256 * 1024) : max_bytes_(max_bytes) {}

  /// Starts a new block (each HEADERS frame is one).
  void reset() noexcept;
  /// One field as nghttp2 decoded it. Errors: the block grew past the limit
  /// (too_large), or a pseudo-header other than a valid :status (protocol).
  Result<void> add(std::string_view name, std::string_view value);

  /// The :status of the block, when it had one.
  std::optional<int> status() const noexcept { return status_; }
  const Headers& fields() const noexcept { return fields_; }
  Headers take_fields() { return std::move(fields_); }
  /// Size as HTTP/2 counts it (RFC 9113 section 6.5.2: name + value + 32 per field).
  std::size_t size() const noexcept { return size_; }
  std::size_t max_bytes() const noexcept { return max_bytes_; }

 private:
  std::size_t max_bytes_;
  std::size_t size_ = 0;
  std::optional<int> status_;
  Headers fields_;
};

/// "NO_ERROR", "REFUSED_STREAM", ...: the RFC name of an HTTP/2 error code.
std::string h2_error_name(std::uint32_t error_code);

}  // namespace sluice
