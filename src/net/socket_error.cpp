#include "net/socket_error.hpp"

#include <cerrno>
#include <cstring>
#include <string>

namespace sluice {

Error socket_io_error(int err, bool receiving) {
  const ErrorCode code = receiving ? ErrorCode::receive_failed : ErrorCode::send_failed;
  switch (err) {
    case ECONNRESET: return Error(code, "connection reset by peer");
    case EPIPE: return Error(code, "connection closed by peer");
    case ETIMEDOUT: return Error(code, "connection timed out (peer unreachable)");
    default:
      return Error(code, std::string("socket ") + (receiving ? "recv" : "send") +
                             " failed: " + std::strerror(err));
  }
}

}  // namespace sluice
