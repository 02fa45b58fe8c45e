#pragma once
// Owners for the C API's handles in tests, so a failed assertion frees them too.
// Ownership: each owner is a value on its test's stack; test thread only.

#include "sluice/sluice.h"

namespace sluice::test {

struct ClientHandle {
  sluice_client* get = nullptr;
  ~ClientHandle() { sluice_client_free(get); }
};
struct RequestHandle {
  sluice_request* get = nullptr;
  ~RequestHandle() { sluice_request_free(get); }
};
struct ResponseHandle {
  sluice_response* get = nullptr;
  ~ResponseHandle() { sluice_response_free(get); }
};
struct PendingHandle {
  sluice_pending* get = nullptr;
  ~PendingHandle() { sluice_pending_free(get); }
};

}  // namespace sluice::test
