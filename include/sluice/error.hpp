#pragma once
/// @file
/// sluice::Error and sluice::Result: every fallible call in sluice returns a value,
/// never throws across the library boundary.

#include <cassert>
#include <functional>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>
#include <variant>

#include "sluice/export.h"

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
  io,         ///< I/O failed: a local file's read or write, or a socket's send or receive
  usage,      ///< the caller asked for something invalid (bad URL, bad header)
  http,       ///< an error status (4xx, 5xx) where success was needed (download())
};

/// A short lowercase name for a category ("tls", "timeout", ...).
SLUICE_API const char* to_string(ErrorCategory category) noexcept;

/// What went wrong, finely, with stable numbers (the C API exposes them): the
/// hundreds are the category, the first of each hundred its general code. A program
/// that only needs to decide reads the category; one that reports or counts reads
/// the code. New codes may be added; a number is never reused.
enum class ErrorCode : int {
  dns_failed = 100,      ///< the host name did not resolve
  connect_failed = 200,  ///< no address accepted a connection
  proxy_refused = 201,   ///< the proxy refused the tunnel or request (a non-2xx answer)
  local_bind_failed =
      202,  ///< the local interface or port (ClientOptions::routing.interface) was unusable
  proxy_handshake = 203,  ///< the proxy's handshake broke its protocol (a malformed SOCKS5 answer)
  tls_failed = 300,       ///< the TLS handshake or session failed
  tls_certificate = 301,  ///< the server's certificate was not trusted for the host
  tls_ca_file = 302,      ///< the CA file could not be read or held no certificate
  tls_pinned_key = 303,   ///< the server's key matched none of TlsOptions::pinned_public_key
  protocol_error = 400,   ///< the server broke HTTP
  body_truncated = 401,   ///< the body ended (the connection closed) before its end
  empty_reply = 402,      ///< the connection closed before a byte of the response arrived
  http2_framing = 403,    ///< the HTTP/2 framing layer failed (an invalid frame, a session error)
  http3_failed = 404,     ///< the HTTP/3 layer failed (a connection error from nghttp3)
  timeout = 500,          ///< a configured timeout expired
  connect_timeout = 501,  ///< no connection (or free stream) within Timeouts::connect
  first_byte_timeout = 502,  ///< no response head within Timeouts::first_byte
  idle_timeout = 503,        ///< the server was silent for Timeouts::idle
  total_timeout = 504,       ///< the transfer did not end within Timeouts::total
  ping_timeout = 505,        ///< an HTTP/2 connection did not answer a PING
  handshake_timeout = 506,   ///< a QUIC handshake did not complete
  dns_timeout = 507,  ///< no answer from the name servers within ClientOptions::routing.dns_timeout
  low_speed = 508,    ///< slower than ClientOptions::low_speed for its whole time
  cancelled = 600,    ///< the caller (or the Client's end) cancelled
  too_large = 700,    ///< a configured limit was exceeded
  too_many_redirects = 701,  ///< RedirectOptions::max_redirects
  headers_too_large = 702,   ///< Request::max_header_bytes
  decoded_too_large = 703,   ///< DecodeOptions::max_decoded_size or the ratio limit
  body_too_large = 704,      ///< Request::max_body_size, or read_all's limit
  decode_failed = 800,       ///< content decoding failed
  io_failed = 900,           ///< local I/O failed
  out_of_memory = 901,       ///< memory ran out (reported by the C API, which cannot throw)
  send_failed = 902,         ///< a socket's send failed (the peer reset or closed the connection)
  receive_failed = 903,      ///< a socket's receive failed (the peer reset the connection)
  usage = 1000,              ///< the caller asked for something invalid
  bad_url = 1001,            ///< the URL did not parse, or its scheme is not http(s)
  invalid_argument = 1002,   ///< a C API call got a null, dead or out-of-range argument
  http_status = 1100,        ///< an error status where success was needed
  redirect_refused = 1101,   ///< a redirect where RedirectPolicy::fail_on_redirect refused one
  insecure_redirect =
      1102,  ///< a redirect from https to http (RedirectPolicy::allow_https_to_http), or
             ///< to a scheme RedirectPolicy::follow_to_http/_https turned off
};

/// A code's category (its hundreds).
SLUICE_API ErrorCategory category_of(ErrorCode code) noexcept;
/// A category's general code (the first of its hundred).
SLUICE_API ErrorCode general_code(ErrorCategory category) noexcept;
/// A short lowercase name for a code ("idle_timeout", ...).
SLUICE_API const char* to_string(ErrorCode code) noexcept;
/// Whether an error of this code is worth trying again by default: the network's
/// and the server's hiccups (dns, connect, timeout, protocol), not the rest.
SLUICE_API bool retryable_by_default(ErrorCode code) noexcept;

/// One error: a stable code, its category and a message a person can act on, for
/// example "TLS: certificate for example.org does not match host localhost".
class SLUICE_API Error {
 public:
  /// The category's general code.
  Error(ErrorCategory category, std::string message)
      : code_(general_code(category)),
        category_(category),
        retryable_(retryable_by_default(code_)),
        message_(std::move(message)) {}
  /// The code's category.
  Error(ErrorCode code, std::string message)
      : code_(code),
        category_(category_of(code)),
        retryable_(retryable_by_default(code)),
        message_(std::move(message)) {}

  ErrorCode code() const noexcept { return code_; }
  ErrorCategory category() const noexcept { return category_; }
  /// Whether the same request tried again may succeed: retryable_by_default(code())
  /// unless whoever raised it knew better (a TLS server that ends every body without
  /// close_notify fails the same way each time). Retry policies read this, not the
  /// category.
  bool retryable() const noexcept { return retryable_; }
  Error& set_retryable(bool retryable) & noexcept {
    retryable_ = retryable;
    return *this;
  }
  Error&& set_retryable(bool retryable) && noexcept {
    retryable_ = retryable;
    return std::move(*this);
  }
  const std::string& message() const noexcept { return message_; }
  /// "category: message", for logs.
  std::string describe() const;

 private:
  ErrorCode code_;
  ErrorCategory category_;
  bool retryable_;
  std::string message_;
};

template <class T>
class Result;

namespace detail {
template <class R>
struct IsResult : std::false_type {};
template <class U>
struct IsResult<Result<U>> : std::true_type {};
}  // namespace detail

/// A value or an Error, in the shape of C++23's std::expected<T, Error>: check with
/// `ok()` / `has_value()` (or `if (result)`) before `value()`, or chain with
/// `and_then` (the next fallible step), `transform` (a plain function of the value),
/// `or_else` (a step on the error) and `value_or`.
template <class T>
class [[nodiscard]] Result {
 public:
  using value_type = T;
  Result(T value) : state_(std::in_place_index<0>, std::move(value)) {}
  Result(Error error) : state_(std::in_place_index<1>, std::move(error)) {}

  bool ok() const noexcept { return state_.index() == 0; }
  bool has_value() const noexcept { return ok(); }
  explicit operator bool() const noexcept { return ok(); }

  T& value() & {
    assert(ok());
    return std::get<0>(state_);
  }
  const T& value() const& {
    assert(ok());
    return std::get<0>(state_);
  }
  T&& value() && {
    assert(ok());
    return std::get<0>(std::move(state_));
  }
  T& operator*() & { return value(); }
  const T& operator*() const& { return value(); }
  T&& operator*() && { return std::move(*this).value(); }
  T* operator->() { return &value(); }
  const T* operator->() const { return &value(); }

  const Error& error() const& {
    assert(!ok());
    return std::get<1>(state_);
  }
  Error&& error() && {
    assert(!ok());
    return std::get<1>(std::move(state_));
  }

  /// The value, or `fallback` on an error.
  template <class U>
  T value_or(U&& fallback) const& {
    return ok() ? value() : static_cast<T>(std::forward<U>(fallback));
  }
  template <class U>
  T value_or(U&& fallback) && {
    return ok() ? std::move(*this).value() : static_cast<T>(std::forward<U>(fallback));
  }
  /// f(value), itself a Result, or this error.
  template <class F>
  auto and_then(F&& f) const& {
    using Next = std::invoke_result_t<F, const T&>;
    static_assert(detail::IsResult<Next>::value, "and_then: f must return a Result");
    return ok() ? std::invoke(std::forward<F>(f), value()) : Next(error());
  }
  template <class F>
  auto and_then(F&& f) && {
    using Next = std::invoke_result_t<F, T&&>;
    static_assert(detail::IsResult<Next>::value, "and_then: f must return a Result");
    return ok() ? std::invoke(std::forward<F>(f), std::move(*this).value())
                : Next(std::move(*this).error());
  }
  /// Result<U> of f(value), or this error.
  template <class F>
  auto transform(F&& f) const& {
    using U = std::invoke_result_t<F, const T&>;
    if (!ok()) return Result<U>(error());
    if constexpr (std::is_void_v<U>) {
      std::invoke(std::forward<F>(f), value());
      return Result<U>();
    } else {
      return Result<U>(std::invoke(std::forward<F>(f), value()));
    }
  }
  /// This value, or f(error), itself a Result<T>.
  template <class F>
  Result or_else(F&& f) const& {
    return ok() ? *this : Result(std::invoke(std::forward<F>(f), error()));
  }

 private:
  std::variant<T, Error> state_;
};

/// Success with nothing to return, or an Error.
template <>
class [[nodiscard]] Result<void> {
 public:
  Result() = default;
  Result(Error error) : error_(std::move(error)), failed_(true) {}

  using value_type = void;
  bool ok() const noexcept { return !failed_; }
  bool has_value() const noexcept { return ok(); }
  explicit operator bool() const noexcept { return ok(); }
  /// Asserts success (std::expected<void, E>::value()).
  void value() const { assert(!failed_); }
  const Error& error() const& {
    assert(failed_);
    return error_;
  }
  Error&& error() && {
    assert(failed_);
    return std::move(error_);
  }

  /// f(), itself a Result, or this error.
  template <class F>
  auto and_then(F&& f) const {
    using Next = std::invoke_result_t<F>;
    static_assert(detail::IsResult<Next>::value, "and_then: f must return a Result");
    return ok() ? std::invoke(std::forward<F>(f)) : Next(error_);
  }
  /// Result<U> of f(), or this error.
  template <class F>
  auto transform(F&& f) const {
    using U = std::invoke_result_t<F>;
    if (!ok()) return Result<U>(error_);
    if constexpr (std::is_void_v<U>) {
      std::invoke(std::forward<F>(f));
      return Result<U>();
    } else {
      return Result<U>(std::invoke(std::forward<F>(f)));
    }
  }
  /// Success, or f(error), itself a Result<void>.
  template <class F>
  Result or_else(F&& f) const {
    return ok() ? *this : Result(std::invoke(std::forward<F>(f), error_));
  }

 private:
  Error error_{ErrorCategory::usage, {}};
  bool failed_ = false;
};

}  // namespace sluice
