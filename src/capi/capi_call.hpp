#pragma once
// The C API's boundary: every extern "C" function runs its body through capi_call(),
// which turns a Result's Error, a C++ exception or std::bad_alloc into a sluice_code
// and records the message for sluice_last_error() on the calling thread. No
// exception crosses into C: a C caller cannot catch one.
//
// Ownership: the last error is thread-local; each thread sees only its own.

#include <exception>
#include <new>
#include <string>
#include <string_view>
#include <utility>

#include "sluice/error.hpp"
#include "sluice/sluice.h"

namespace sluice::capi {

/// Records `error` as this thread's last error; returns its code.
sluice_code fail(const Error& error) noexcept;
/// An invalid-argument failure naming the function and what was wrong.
sluice_code invalid(const char* function, std::string_view what) noexcept;
/// This thread's last error message ("" before any).
const char* last_error_message() noexcept;
/// Clears nothing: a success leaves the last error as it was (errno's rule), so a
/// caller may read the message after other calls that succeeded.
inline sluice_code ok() noexcept { return SLUICE_OK; }

/// Runs `body` (returning sluice_code) and converts anything thrown.
template <class Body>
sluice_code capi_call(const char* function, Body&& body) noexcept {
  try {
    return std::forward<Body>(body)();
  } catch (const std::bad_alloc&) {
    return fail(Error(ErrorCode::out_of_memory, std::string(function) + ": out of memory"));
  } catch (const std::exception& e) {
    return fail(Error(ErrorCode::usage, std::string(function) + ": " + e.what()));
  } catch (...) {
    return fail(Error(ErrorCode::usage, std::string(function) + ": unexpected failure"));
  }
}

/// A C string argument of `len` bytes as a string_view; std::nullopt-like failure
/// when `data` is null with a non-zero length or holds a NUL.
bool text_argument(const char* data, std::size_t len, std::string_view& out) noexcept;

}  // namespace sluice::capi
