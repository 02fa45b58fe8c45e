// HTTP/2 header mapping (see h2_headers.hpp).
//
// Ownership: plain values used on the HTTP thread.

#include "http2/h2_headers.hpp"

#include <cstdint>
#include <string>

namespace sluice {
namespace {

nghttp2_nv make_nv(const Header& field) {
  // nghttp2 copies names and values in nghttp2_submit_request, so no NO_COPY flags.
  return nghttp2_nv{reinterpret_cast<std::uint8_t*>(const_cast<char*>(field.name.data())),
                    reinterpret_cast<std::uint8_t*>(const_cast<char*>(field.value.data())),
                    field.name.size(), field.value.size(), NGHTTP2_NV_FLAG_NONE};
}

}  // namespace

H2RequestHeaders::H2RequestHeaders(const ExchangeRequest& request)
    : fields_(multiplexed_request_fields(request)) {
  // Only now: nv_ points into fields_, which must not move any more.
  nv_.reserve(fields_.size());
  for (const Header& field : fields_) nv_.push_back(make_nv(field));
}

std::string h2_error_name(std::uint32_t error_code) {
  std::string name = nghttp2_http2_strerror(error_code);
  if (name == "unknown") name = "error code " + std::to_string(error_code);
  return name;
}

}  // namespace sluice
