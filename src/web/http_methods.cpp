// What the request methods of RFC 9110 promise about sending one again.
// Pure functions: any thread.

#include "sluice/request.hpp"

namespace sluice {

bool is_idempotent_method(std::string_view method) noexcept {
  return method == "GET" || method == "HEAD" || method == "OPTIONS" || method == "TRACE" ||
         method == "PUT" || method == "DELETE";
}

}  // namespace sluice
