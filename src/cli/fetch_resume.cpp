#include "cli/fetch_resume.hpp"

#include <charconv>
#include <system_error>

#include "sluice/content_range.hpp"

namespace sluice::cli {
namespace {

std::optional<std::string> header(const Response& response, std::string_view name) {
  if (auto value = response.headers.get(name)) return std::string(*value);
  return std::nullopt;
}

// "the first N bytes are already written: ..." so the person knows nothing was lost.
Error cannot_continue(std::uint64_t written, const std::string& why) {
  return Error(ErrorCategory::protocol, "cannot continue after the " + std::to_string(written) +
                                            " bytes already written: " + why);
}

}  // namespace

void FetchResume::remember(const Response& response, bool decoding) {
  if (remembered_) return;
  remembered_ = true;
  decoded_ = decoding && response.headers.contains("content-encoding");
  // A weak ETag (W/"...") may not be used with If-Range (RFC 9110 section 13.1.5).
  etag_ = header(response, "etag");
  if (etag_ && etag_->starts_with("W/")) etag_.reset();
  last_modified_ = header(response, "last-modified");
  if (auto length = response.headers.get("content-length")) {
    std::uint64_t value = 0;
    const auto [end, ec] = std::from_chars(length->data(), length->data() + length->size(), value);
    if (ec == std::errc() && end == length->data() + length->size()) size_ = value;
  }
}

void FetchResume::add_request_headers(Headers& headers) const {
  if (written_ == 0 || decoded_) return;
  headers.set("Range", "bytes=" + std::to_string(written_) + "-");
  if (etag_) {
    headers.set("If-Range", *etag_);
  } else if (last_modified_) {
    headers.set("If-Range", *last_modified_);
  }
}

Result<std::uint64_t> FetchResume::bytes_to_skip(const Response& response) const {
  if (written_ == 0) return std::uint64_t{0};
  if (response.status == 206 && !decoded_) {
    const auto value = response.headers.get("content-range");
    const auto range = value ? parse_content_range(*value) : std::nullopt;
    if (!range || range->first != written_) {
      return cannot_continue(written_, "the server sent another range (Content-Range: " +
                                           std::string(value.value_or("none")) + ")");
    }
    return std::uint64_t{0};
  }
  if (response.status != 200) {
    return cannot_continue(written_, "the server answered " + std::to_string(response.status));
  }
  // The whole body again: the same resource only if the validator If-Range named
  // agrees (with none, an equal Content-Length).
  const std::string validator = etag_ ? *etag_ : last_modified_.value_or("");
  if (!is_same_resource(response.headers, validator, size_)) {
    return cannot_continue(written_, "the resource changed on the server");
  }
  return written_;
}

}  // namespace sluice::cli
