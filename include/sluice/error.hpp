#pragma once
/// @file
/// sluice::Error and sluice::Result: every fallible call in sluice returns a value,
/// never throws across the library boundary.

#include <cassert>
#include <string>
#include <string_view>
#include <utility>
#include <variant>

namespace sluice {

/// What went wrong, coarsely: enough for a program to decide whether to retry.
enum class ErrorCategory {
  dns,        ///< the host name did not resolve
  connect,    ///< no address accepted a TCP connection
  tls,        ///< handshake failed, certificate rejected
  protocol,   ///< the peer broke HTTP (bad status line, truncated body, ...)
  timeout,    ///< a configured timeout expired
  cancelled,  ///< the caller cancelled
  too_large,  ///< a configured limit was exceeded (headers, decoded size, body size)
  decode,     ///< content decoding failed (corrupt gzip, br, zstd)
  io,         ///< local I/O failed (file read or write)
  usage,      ///< the caller asked for something invalid (bad URL, bad header)
  http,       ///< an error status (4xx, 5xx) where success was needed (download())
};

/// A short lowercase name for a category ("tls", "timeout", ...).
const char* to_string(ErrorCategory category) noexcept;

/// One error: a category and a message a person can act on, for example
/// "TLS: certificate for example.org does not match host localhost".
class Error {
 public:
  Error(ErrorCategory category, std::string message)
      : category_(category), message_(std::move(message)) {}

  ErrorCategory category() const noexcept { return category_; }
  const std::string& message() const noexcept { return message_; }
  /// "category: message", for logs.
  std::string describe() const;

 private:
  ErrorCategory category_;
  std::string message_;
};

/// A value or an Error. Check with `ok()` (or `if (result)`) before `value()`.
template <class T>
class [[nodiscard]] Result {
 public:
  Result(T value) : state_(std::in_place_index<0>, std::move(value)) {}
  Result(Error error) : state_(std::in_place_index<1>, std::move(error)) {}

  bool ok() const noexcept { return state_.index() == 0; }
  explicit operator bool() const noexcept { return ok(); }

  T& value() & { assert(ok()); return std::get<0>(state_); }
  const T& value() const& { assert(ok()); return std::get<0>(state_); }
  T&& value() && { assert(ok()); return std::get<0>(std::move(state_)); }
  T& operator*() & { return value(); }
  const T& operator*() const& { return value(); }
  T&& operator*() && { return std::move(*this).value(); }
  T* operator->() { return &value(); }
  const T* operator->() const { return &value(); }

  const Error& error() const& { assert(!ok()); return std::get<1>(state_); }
  Error&& error() && { assert(!ok()); return std::get<1>(std::move(state_)); }

 private:
  std::variant<T, Error> state_;
};

/// Success with nothing to return, or an Error.
template <>
class [[nodiscard]] Result<void> {
 public:
  Result() = default;
  Result(Error error) : error_(std::move(error)), failed_(true) {}

  bool ok() const noexcept { return !failed_; }
  explicit operator bool() const noexcept { return ok(); }
  const Error& error() const& { assert(failed_); return error_; }
  Error&& error() && { assert(failed_); return std::move(error_); }

 private:
  Error error_{ErrorCategory::usage, {}};
  bool failed_ = false;
};

}  // namespace sluice
