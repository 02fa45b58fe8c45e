#include "mux/multiplexed_fields.hpp"

#include <charconv>
#include <utility>

namespace sluice {

namespace {
std::string lowercase(std::string_view name) {
  std::string lower(name);
  for (char& c : lower) {
    if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
  }
  return lower;
}
}  // namespace

bool is_connection_specific_field(std::string_view lowercase_name,
                                  std::string_view value) noexcept {
  if (lowercase_name == "connection" || lowercase_name == "keep-alive" ||
      lowercase_name == "proxy-connection" || lowercase_name == "transfer-encoding" ||
      lowercase_name == "upgrade" || lowercase_name == "host") {
    return true;
  }
  // TE may appear only as "trailers".
  return lowercase_name == "te" && !iequals(value, "trailers");
}

std::vector<Header> multiplexed_request_fields(const ExchangeRequest& request) {
  std::vector<Header> fields;
  fields.reserve(request.headers.size() + 5);
  fields.push_back({":method", request.method});
  fields.push_back({":scheme", request.scheme});
  fields.push_back({":authority", request.authority});
  fields.push_back({":path", request.target.empty() ? std::string("/") : request.target});
  for (const Header& field : request.headers) {
    std::string name = lowercase(field.name);
    if (name == "content-length" || is_connection_specific_field(name, field.value)) continue;
    fields.push_back({std::move(name), field.value});
  }
  if (request.body != nullptr) {
    if (auto length = request.body->length())
      fields.push_back({"content-length", std::to_string(*length)});
  }
  return fields;
}

std::optional<std::uint64_t> content_length_of(const Headers& fields) {
  auto text = fields.get("content-length");
  if (!text) return std::nullopt;
  std::uint64_t length = 0;
  const auto parsed = std::from_chars(text->data(), text->data() + text->size(), length);
  if (parsed.ec != std::errc() || parsed.ptr != text->data() + text->size()) return std::nullopt;
  return length;
}

void ResponseFieldBlock::reset() noexcept {
  size_ = 0;
  status_.reset();
  fields_ = Headers();
}

Result<void> ResponseFieldBlock::add(std::string_view name, std::string_view value) {
  size_ += name.size() + value.size() + 32;
  if (size_ > max_bytes_) {
    return Error(ErrorCode::headers_too_large,
                 std::string(protocol_) +
                     ": response header block from server exceeds the limit of " +
                     std::to_string(max_bytes_) + " bytes (max_header_bytes)");
  }
  if (!name.empty() && name.front() == ':') {
    if (name != ":status") {
      return Error(ErrorCategory::protocol, std::string(protocol_) +
                                                ": server sent the pseudo-header '" +
                                                std::string(name) + "' in a response");
    }
    int status = 0;
    const auto parsed = std::from_chars(value.data(), value.data() + value.size(), status);
    if (value.size() != 3 || parsed.ec != std::errc() || parsed.ptr != value.data() + 3 ||
        status < 100) {
      return Error(ErrorCategory::protocol, std::string(protocol_) + ": invalid :status '" +
                                                std::string(value) + "' from server");
    }
    status_ = status;
    return {};
  }
  // Room for a typical head at once, not a reallocation at the 1st, 2nd, 4th and
  // 8th field; an empty section (most trailers) allocates nothing.
  if (fields_.empty()) fields_.reserve(kTypicalFields);
  fields_.add(std::string(name), std::string(value));
  return {};
}

}  // namespace sluice
