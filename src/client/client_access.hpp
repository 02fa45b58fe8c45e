#pragma once
// ClientAccess: how the library's own parts built on the public Client (src/download)
// reach what the Client runs (its file pool, the release rule's threshold), and how
// tests reach its core (a Client whose HTTP thread runs on their clock, a task posted
// to that thread). Not part of the API.
// Ownership: a static accessor; the ClientCore it returns belongs to the Client and
// lives as long as it.

#include <cstddef>

#include "sluice/client.hpp"

namespace sluice {

class ClientCore;
class TimeSource;
class WorkerPool;

struct ClientAccess {
  static ClientCore& core(Client& client);
  /// What the downloader (src/download) needs of the Client, and no more: the pool
  /// that runs file jobs, and the size above which a copy is freed by the thread
  /// that finished with it (the release rule).
  static WorkerPool& file_pool(Client& client);
  static std::size_t release_threshold(const Client& client);
  /// Client::create with the HTTP thread's loop on `clock` (which outlives the
  /// Client): a test's manual clock makes its timeouts, the sweep and the h3
  /// fallback fire as the test moves the clock.
  static Result<Client> create(ClientOptions options, const TimeSource& clock);
};

}  // namespace sluice
