#pragma once
/// @file
/// An ordered, case-insensitive header list and the validation applied to every
/// header that sluice sends.

#include <initializer_list>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "sluice/error.hpp"
#include "sluice/export.h"

namespace sluice {

/// One header field as received or to be sent.
struct Header {
  std::string name;
  std::string value;
};

/// Header fields in order. Lookups ignore ASCII case in names. Not thread-safe; a
/// Headers value belongs to whoever holds it.
class SLUICE_API Headers {
 public:
  Headers() = default;
  Headers(std::initializer_list<Header> fields) : fields_(fields) {}

  /// Appends a field (repeats allowed: Set-Cookie, Via).
  void add(std::string name, std::string value);
  /// Makes room for `count` fields in all, as std::vector::reserve does.
  void reserve(std::size_t count) { fields_.reserve(count); }
  /// Replaces every field of that name with one.
  void set(std::string name, std::string value);
  /// Removes every field of that name; returns how many went.
  std::size_t remove(std::string_view name);
  /// The first value of that name.
  std::optional<std::string_view> get(std::string_view name) const;
  /// Every value of that name, in order.
  std::vector<std::string_view> get_all(std::string_view name) const;
  bool contains(std::string_view name) const { return get(name).has_value(); }

  std::size_t size() const noexcept { return fields_.size(); }
  bool empty() const noexcept { return fields_.empty(); }
  auto begin() const noexcept { return fields_.begin(); }
  auto end() const noexcept { return fields_.end(); }

 private:
  std::vector<Header> fields_;
};

/// ASCII case-insensitive equality, for header names and tokens.
SLUICE_API bool iequals(std::string_view a, std::string_view b) noexcept;

/// A header name must be an RFC 9110 token (no CR, LF, NUL, space, colon, ...).
SLUICE_API Result<void> validate_header_name(std::string_view name);
/// A header value may not contain CR, LF or NUL, nor start or end with whitespace
/// (whitespace at the ends is trimmed by receivers, so we refuse ambiguity).
SLUICE_API Result<void> validate_header_value(std::string_view value);
/// Both, with an error that names the offending header.
SLUICE_API Result<void> validate_header(std::string_view name, std::string_view value);

}  // namespace sluice
