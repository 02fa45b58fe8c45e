#include "cli/fetch_resume.hpp"

#include <charconv>
#include <system_error>

#include "tools/content_range.hpp"

namespace sluice::cli {
namespace {

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
  validator_ = resume_validator(response.headers);
  if (auto length = response.headers.get("content-length")) {
    std::uint64_t value = 0;
    const auto [end, ec] = std::from_chars(length->data(), length->data() + length->size(), value);
    if (ec == std::errc() && end == length->data() + length->size()) size_ = value;
  }
}

void FetchResume::add_request_headers(Headers& headers) const {
  if (!ranges_.empty()) {
    headers.set("Range", "bytes=" + ranges_);
    return;
  }
  // A decoded body is asked for from the -C offset again, and its written bytes skipped.
  const std::uint64_t from = offset_ + (decoded_ ? 0 : written_);
  if (from == 0) return;
  headers.set("Range", "bytes=" + std::to_string(from) + "-");
  if (!validator_.empty() && from > offset_) headers.set("If-Range", validator_);
}

Result<std::uint64_t> FetchResume::bytes_to_skip(const Response& response) const {
  if (!ranges_.empty()) {
    if (written_ == 0) return std::uint64_t{0};
    return cannot_continue(written_, "a retried -r range is not continued");
  }
  const std::uint64_t at = offset_ + written_;
  if (at == 0) return std::uint64_t{0};
  if (response.status == 206 && !decoded_) {
    const auto value = response.headers.get("content-range");
    const auto range = value ? parse_content_range(*value) : std::nullopt;
    if (!range || range->first != at) {
      return cannot_continue(written_, "the server sent another range (Content-Range: " +
                                           std::string(value.value_or("none")) + ")");
    }
    return std::uint64_t{0};
  }
  if (response.status != 200) {
    if (written_ == 0) return std::uint64_t{0};  // a 416 or an error status: the caller's
    return cannot_continue(written_, "the server answered " + std::to_string(response.status));
  }
  if (offset_ > 0) {
    return Error(ErrorCategory::protocol, "cannot continue at byte " + std::to_string(offset_) +
                                              ": the server does not answer ranges (it sent 200)");
  }
  // The whole body again: the same resource only if the validator If-Range named
  // agrees (with none, an equal Content-Length).
  if (!is_same_resource(response.headers, validator_, size_)) {
    return cannot_continue(written_, "the resource changed on the server");
  }
  return written_;
}

}  // namespace sluice::cli
