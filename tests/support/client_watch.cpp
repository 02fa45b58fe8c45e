#include "support/client_watch.hpp"

#include <condition_variable>
#include <memory>
#include <mutex>

#include "client/client_access.hpp"
#include "client/client_core.hpp"
#include "support/client_on_clock.hpp"

namespace sluice::test {
namespace {

// Shared by the waiting thread and the observer, which may run once more after the
// wait returned: `open` false means the condition (whose captures may be gone) is
// never called again.
struct Watch {
  std::mutex mu;
  std::condition_variable changed;
  bool open = true;  // guarded by mu
  bool met = false;  // guarded by mu
  std::function<bool()> condition;
};

}  // namespace

bool wait_for_client(Client& client, std::function<bool()> condition,
                     std::chrono::milliseconds deadline) {
  ClientCore& core = ClientAccess::core(client);
  auto watch = std::make_shared<Watch>();
  watch->condition = std::move(condition);
  auto observer_id = std::make_shared<EventLoop::ObserverId>(0);
  const bool posted = core.poster()->post([&core, watch, observer_id] {
    *observer_id = core.loop().add_turn_observer([watch] {
      std::lock_guard lock(watch->mu);
      if (!watch->open || watch->met) return;
      if (!watch->condition()) return;
      watch->met = true;
      watch->changed.notify_all();
    });
  });
  if (!posted) return false;
  bool met = false;
  {
    std::unique_lock lock(watch->mu);
    met = watch->changed.wait_for(lock, deadline, [&] { return watch->met; });
    watch->open = false;
  }
  core.poster()->post([&core, observer_id] { core.loop().remove_turn_observer(*observer_id); });
  return met;
}

Refill wait_for_refill(Client& client, std::chrono::milliseconds deadline) {
  if (!settle(client, deadline)) return Refill::timed_out;
  Refill refill = Refill::timed_out;
  wait_for_client(
      client,
      [&] {
        const ClientStats stats = client.stats();
        if (stats.paused_receivers == 1) refill = Refill::paused;
        if (stats.in_flight == 0) refill = Refill::ended;
        return refill != Refill::timed_out;
      },
      deadline);
  return refill;
}

}  // namespace sluice::test
