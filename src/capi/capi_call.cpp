#include "capi/capi_call.hpp"

#include <cstring>

namespace sluice::capi {
namespace {

// What sluice_last_error() returns: kept per thread, valid until that thread's next
// failing call.
thread_local std::string last_error;

}  // namespace

sluice_code fail(const Error& error) noexcept {
  try {
    last_error = error.message();
  } catch (...) {
    last_error.clear();  // no memory for the message; the code still says what failed
  }
  return static_cast<sluice_code>(static_cast<int>(error.code()));
}

sluice_code invalid(const char* function, std::string_view what) noexcept {
  try {
    std::string message(function);
    message += ": ";
    message += what;
    return fail(Error(ErrorCode::invalid_argument, std::move(message)));
  } catch (...) {
    last_error.clear();
    return SLUICE_E_INVALID_ARGUMENT;
  }
}

bool text_argument(const char* data, std::size_t len, std::string_view& out) noexcept {
  if (data == nullptr) {
    if (len != 0) return false;
    out = {};
    return true;
  }
  if (std::memchr(data, '\0', len) != nullptr) return false;
  out = std::string_view(data, len);
  return true;
}

const char* last_error_message() noexcept { return last_error.c_str(); }

}  // namespace sluice::capi
