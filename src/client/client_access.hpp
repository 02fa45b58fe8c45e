#pragma once
// ClientAccess: how tests reach what a Client runs (its core: a task posted to the
// HTTP thread, a state watched there) and make a Client whose HTTP thread runs on
// their clock. Not part of the API; nothing in the library uses it.
// Ownership: a static accessor; the ClientCore it returns belongs to the Client and
// lives as long as it.

#include "sluice/client.hpp"

namespace sluice {

class ClientCore;
class TimeSource;

struct ClientAccess {
  static ClientCore& core(Client& client);
  /// Client::create with the HTTP thread's loop on `clock` (which outlives the
  /// Client): a test's manual clock makes its timeouts, the sweep and the h3
  /// fallback fire as the test moves the clock.
  static Result<Client> create(ClientOptions options, const TimeSource& clock);
};

}  // namespace sluice
