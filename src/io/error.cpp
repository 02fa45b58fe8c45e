#include "sluice/error.hpp"

namespace sluice {

const char* to_string(ErrorCategory category) noexcept {
  switch (category) {
    case ErrorCategory::dns: return "dns";
    case ErrorCategory::connect: return "connect";
    case ErrorCategory::tls: return "tls";
    case ErrorCategory::protocol: return "protocol";
    case ErrorCategory::timeout: return "timeout";
    case ErrorCategory::cancelled: return "cancelled";
    case ErrorCategory::too_large: return "too_large";
    case ErrorCategory::decode: return "decode";
    case ErrorCategory::io: return "io";
    case ErrorCategory::usage: return "usage";
    case ErrorCategory::http: return "http";
  }
  return "unknown";
}

std::string Error::describe() const {
  return std::string(to_string(category_)) + ": " + message_;
}

}  // namespace sluice
