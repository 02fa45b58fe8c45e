#pragma once
// HTTP/3 header mapping: an ExchangeRequest becomes the nghttp3_nv list of a request
// HEADERS frame, and a received response field section is checked and collected into
// a ReceivedHead (the HTTP/3 sibling of http2/h2_headers.hpp).
// Ownership: plain values, built and used on the HTTP thread by H3Session.

#include <nghttp3/nghttp3.h>

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
  std::vector<Header> fields_;
  std::vector<nghttp3_nv> nv_;
};

/// One received field section; see ResponseFieldBlock (mux/multiplexed_fields.hpp).
class H3HeaderBlock : public ResponseFieldBlock {
 public:
  explicit H3HeaderBlock(std::size_t max_bytes = 256 * 1024)
      : ResponseFieldBlock("HTTP/3", max_bytes) {}
};

}  // namespace sluice
