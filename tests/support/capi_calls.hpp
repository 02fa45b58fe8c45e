#pragma once
// What the C API's tests do again and again: name a code with the thread's last
// message, read a body whole with sluice_response_read, and drive a host-dispatch
// client from a poll() loop. Test thread only.

#include <gtest/gtest.h>
#include <poll.h>

#include <string>

#include "sluice/sluice.h"

namespace sluice::test {

inline std::string describe(sluice_code code) {
  return std::string(sluice_code_name(code)) + ": " + sluice_last_error();
}

/// Reads the whole body in 10,000-byte steps; a failed read ends it (and fails the test).
inline std::string read_body(sluice_response* response) {
  std::string all;
  char buffer[10000];
  for (;;) {
    size_t n = 0;
    const sluice_code code = sluice_response_read(response, buffer, sizeof buffer, &n);
    EXPECT_EQ(code, SLUICE_OK) << describe(code);
    if (code != SLUICE_OK || n == 0) return all;
    all.append(buffer, n);
  }
}

/// Polls `client`'s dispatch fd and dispatches until `done()` holds; false after 30 s
/// with nothing to dispatch.
template <class Done>
bool run_dispatch(sluice_client* client, Done done) {
  while (!done()) {
    pollfd fd{sluice_client_dispatch_fd(client), POLLIN, 0};
    if (::poll(&fd, 1, 30'000) != 1) return false;
    EXPECT_EQ(sluice_client_dispatch(client, nullptr), SLUICE_OK);
  }
  return true;
}

}  // namespace sluice::test
