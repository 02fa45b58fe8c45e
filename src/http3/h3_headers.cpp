// HTTP/3 header mapping (see h3_headers.hpp).
//
// Ownership: plain values used on the HTTP thread.

#include "http3/h3_headers.hpp"

#include <string>

namespace sluice {
namespace {

nghttp3_nv make_nv(const Header& field) {
  // nghttp3 copies names and values in nghttp3_conn_submit_request: no NO_COPY flags.
  return nghttp3_nv{reinterpret_cast<std::uint8_t*>(const_cast<char*>(field.name.data())),
                    reinterpret_cast<std::uint8_t*>(const_cast<char*>(field.value.data())),
                    field.name.size(), field.value.size(), NGHTTP3_NV_FLAG_NONE};
}

}  // namespace

H3RequestHeaders::H3RequestHeaders(const ExchangeRequest& request)
    : fields_(multiplexed_request_fields(request)) {
  // Only now: nv_ points into fields_, which must not move any more.
  nv_.reserve(fields_.size());
  for (const Header& field : fields_) nv_.push_back(make_nv(field));
}

}  // namespace sluice
