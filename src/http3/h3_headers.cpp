// HTTP/3 header mapping (see h3_headers.hpp).
//
// Ownership: plain values used on the HTTP thread.

#include "http3/h3_headers.hpp"

#include <charconv>
#include <string>

namespace sluice {
namespace {

std::string lowercase(std::string_view name) {
  std::string lower(name);
  for (char& c : lower) {
    if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
  }
  return lower;
}

nghttp3_nv make_nv(const Header& field) {
  // nghttp3 copies names and values in nghttp3_conn_submit_request: no NO_COPY flags.
  return nghttp3_nv{reinterpret_cast<std::uint8_t*>(const_cast<char*>(field.name.data())),
                    reinterpret_cast<std::uint8_t*>(const_cast<char*>(field.value.data())),
                    field.name.size(), field.value.size(), NGHTTP3_NV_FLAG_NONE};
}

}  // namespace

bool is_h3_connection_specific_field(std::string_view lowercase_name,
                                     std::string_view value) noexcept {
  if (lowercase_name == "connection" || lowercase_name == "keep-alive" ||
      lowercase_name == "proxy-connection" || lowercase_name == "transfer-encoding" ||
      lowercase_name == "upgrade" || lowercase_name == "host") {
    return true;
  }
  // RFC 9114 section 4.2: TE may appear only as "trailers".
  return lowercase_name == "te" && !iequals(value, "trailers");
}

H3RequestHeaders::H3RequestHeaders(const ExchangeRequest& request) {
  add(":method", request.method);
  add(":scheme", request.scheme);
  add(":authority", request.authority);
  add(":path", request.target.empty() ? std::string("/") : request.target);
  for (const Header& field : request.headers) {
    std::string name = lowercase(field.name);
    // Framing is ours: the body decides content-length (see below).
    if (name == "content-length" || is_h3_connection_specific_field(name, field.value)) continue;
    add(std::move(name), field.value);
  }
  if (request.body != nullptr) {
    if (auto length = request.body->length()) add("content-length", std::to_string(*length));
  }
  // Only now: nv_ points into fields_, which must not move any more.
  nv_.reserve(fields_.size());
  for (const Header& field : fields_) nv_.push_back(make_nv(field));
}

void H3RequestHeaders::add(std::string name, std::string value) {
  fields_.push_back(Header{std::move(name), std::move(value)});
}

void H3HeaderBlock::reset() noexcept {
  size_ = 0;
  status_.reset();
  fields_ = Headers();
}

Result<void> H3HeaderBlock::add(std::string_view name, std::string_view value) {
  size_ += name.size() + value.size() + 32;
  if (size_ > max_bytes_) {
    return Error(ErrorCategory::too_large,
                 "HTTP/3: response header block from server exceeds the limit of " +
                     std::to_string(max_bytes_) + " bytes (max_header_bytes)");
  }
  if (!name.empty() && name.front() == ':') {
    if (name != ":status") {
      return Error(ErrorCategory::protocol,
                   "HTTP/3: server sent the pseudo-header '" + std::string(name) +
                       "' in a response");
    }
    int status = 0;
    const auto parsed = std::from_chars(value.data(), value.data() + value.size(), status);
    if (value.size() != 3 || parsed.ec != std::errc() || parsed.ptr != value.data() + 3 ||
        status < 100) {
      return Error(ErrorCategory::protocol,
                   "HTTP/3: invalid :status '" + std::string(value) + "' from server");
    }
    status_ = status;
    return {};
  }
  fields_.add(std::string(name), std::string(value));
  return {};
}

std::optional<std::uint64_t> h3_content_length(const Headers& fields) {
  auto text = fields.get("content-length");
  if (!text) return std::nullopt;
  std::uint64_t length = 0;
  const auto parsed = std::from_chars(text->data(), text->data() + text->size(), length);
  if (parsed.ec != std::errc() || parsed.ptr != text->data() + text->size()) return std::nullopt;
  return length;
}

}  // namespace sluice
