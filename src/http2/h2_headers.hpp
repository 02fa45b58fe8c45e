#pragma once
// HTTP/2 header mapping: an ExchangeRequest becomes the nghttp2_nv list of a request
// HEADERS frame, and a received response field list is checked and collected into
// a ReceivedHead.
// Ownership: plain values, built and used on the HTTP thread by H2Session.

#include <nghttp2/nghttp2.h>

#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "connection/connection.hpp"
#include "mux/multiplexed_fields.hpp"
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
  std::vector<Header> fields_;
  std::vector<nghttp2_nv> nv_;
};

/// One received field section; see ResponseFieldBlock (mux/multiplexed_fields.hpp).
class H2HeaderBlock : public ResponseFieldBlock {
 public:
  explicit H2HeaderBlock(std::size_t max_bytes = 256 * 1024)
      : ResponseFieldBlock("HTTP/2", max_bytes) {}
};

/// "NO_ERROR", "REFUSED_STREAM", ...: the RFC name of an HTTP/2 error code.
std::string h2_error_name(std::uint32_t error_code);

}  // namespace sluice
