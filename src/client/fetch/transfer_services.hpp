#pragma once
// What a Transfer uses of its Client, named one by one instead of the whole core
// (as the pool has PoolServices): the loop, the pool, the settings its FetchHops
// reads, the Alt-Svc cache it fills, the staged-bytes budget and host dispatch its
// staging buffer joins, and the owner it reports to.
// Ownership: the references point into the Client's core, which outlives every
// transfer; HTTP thread only, like Transfer.

#include <memory>

#include "auth/proxy_choice.hpp"
#include "body/host_dispatch.hpp"
#include "body/staged_budget.hpp"
#include "client/http_poster.hpp"
#include "core/event_loop.hpp"
#include "core/trace.hpp"
#include "pool/connection_pool.hpp"
#include "pool/network_settings.hpp"
#include "sluice/client.hpp"
#include "web/alt_svc.hpp"
#include "web/hsts.hpp"

namespace sluice {

class Transfer;

/// What holds the transfers in flight: the Client's core.
class TransferOwner {
 public:
  /// The transfer ended; it is destroyed after the current event.
  virtual void transfer_done(Transfer& transfer) = 0;
  /// The staged-bytes budget holds `transfer` back; it resumes when readers bring the
  /// total under the budget.
  virtual void note_budget_held(const Transfer& transfer) = 0;
  /// The transfer sent its request and waits for the answer (the loop may poll for it
  /// before it sleeps, when this transfer is alone).
  virtual void awaiting_answer() = 0;

 protected:
  ~TransferOwner() = default;
};

struct TransferServices {
  EventLoop& loop;
  ConnectionPool& pool;
  const Trace& trace;
  const ClientOptions& options;
  const ProxySettings& proxies;
  const NetworkSettings& network;
  AltSvcCache& alt_svc;
  /// Known HSTS hosts (ClientOptions::state.hsts); null when HSTS is off.
  HstsStore* hsts;
  std::shared_ptr<HttpPoster> poster;
  /// The Client's staged-bytes total and budget, shared with every staging buffer.
  std::shared_ptr<StagedBudget> staged_budget;
  /// Where user callbacks run with ClientOptions::host_dispatch; null without it.
  std::shared_ptr<HostDispatch> host_dispatch;
  TransferOwner& owner;
};

}  // namespace sluice
