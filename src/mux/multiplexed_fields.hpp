#pragma once
// Header fields as HTTP/2 and HTTP/3 carry them, one implementation for both: the
// request's field list (pseudo-headers first, names lowercased, HTTP/1 connection
// fields dropped: RFC 9113 section 8.2.2, RFC 9114 section 4.2) and the collection of
// a received response field section with its size limit and :status parse. Each
// protocol turns the list into its library's name/value structs.
// Ownership: plain values, built and used on the HTTP thread.

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "connection/connection.hpp"
#include "sluice/error.hpp"
#include "sluice/headers.hpp"

namespace sluice {

/// The request's fields in wire order: :method, :scheme, :authority, :path, then the
/// headers lowercased without connection-specific ones, and content-length from the
/// body when known (never the caller's: framing is ours).
std::vector<Header> multiplexed_request_fields(const ExchangeRequest& request);

/// Whether an HTTP/1-style field must not appear in an h2/h3 request.
bool is_connection_specific_field(std::string_view lowercase_name, std::string_view value) noexcept;

/// The content-length of a field list, when it has one made of digits only.
std::optional<std::uint64_t> content_length_of(const Headers& fields);

/// Collects one received field section (a response head, an interim 1xx head or
/// trailers) field by field and enforces the caller's size limit; the protocol
/// library's own messaging checks run first. Messages name the protocol.
class ResponseFieldBlock {
 public:
  /// `protocol` starts every message ("HTTP/2", "HTTP/3").
  ResponseFieldBlock(const char* protocol, std::size_t max_bytes)
      : protocol_(protocol), max_bytes_(max_bytes) {}

  /// Starts a new section.
  void reset() noexcept;
  /// One field as the library decoded it. Errors: the section grew past the limit
  /// (too_large), or a pseudo-header other than a valid :status (protocol).
  Result<void> add(std::string_view name, std::string_view value);

  /// The :status of the section, when it had one.
  std::optional<int> status() const noexcept { return status_; }
  const Headers& fields() const noexcept { return fields_; }
  Headers take_fields() { return std::move(fields_); }
  /// Size as h2 and h3 count it (RFC 9113 6.5.2, RFC 9114 4.2.2: name + value + 32).
  std::size_t size() const noexcept { return size_; }
  std::size_t max_bytes() const noexcept { return max_bytes_; }

 private:
  static constexpr std::size_t kTypicalFields = 12;

  const char* protocol_;
  std::size_t max_bytes_;
  std::size_t size_ = 0;
  std::optional<int> status_;
  Headers fields_;
};

}  // namespace sluice
