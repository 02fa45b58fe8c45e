#include "support/client_on_clock.hpp"

#include <algorithm>
#include <future>
#include <memory>

#include "client/client_access.hpp"
#include "client/client_core.hpp"

namespace sluice::test {
namespace {

// One task through the HTTP thread's queue; true once it ran there.
bool round_trip(Client& client, std::chrono::milliseconds deadline) {
  auto ran = std::make_shared<std::promise<void>>();
  std::future<void> done = ran->get_future();
  if (!ClientAccess::core(client).poster()->post([ran] { ran->set_value(); })) return false;
  return done.wait_for(deadline) == std::future_status::ready;
}

template <class MovableClock>
bool steps(MovableClock& clock, Client& client, std::chrono::nanoseconds total,
           std::chrono::nanoseconds step) {
  for (std::chrono::nanoseconds moved{0}; moved < total; moved += step) {
    if (!advance(clock, client, std::min(step, total - moved))) return false;
  }
  return true;
}

}  // namespace

Result<Client> client_on(const TimeSource& clock, ClientOptions options) {
  return ClientAccess::create(std::move(options), clock);
}

// The loop's turn (src/core/event_loop.cpp): read the clock, run due timers, run the
// posted batch, run turn-end tasks, wait. The first task may land in a turn that had
// already read the clock and run its timers (the loop was awake for a socket); the
// second is posted after the first ran, so it runs in a later turn, one that began
// after this call; the third runs in the turn after that, so the second's turn has
// finished its turn-end work too.
bool settle(Client& client, std::chrono::milliseconds deadline) {
  for (int turn = 0; turn < 3; ++turn) {
    if (!round_trip(client, deadline)) return false;
  }
  return true;
}

bool advance(ManualClock& clock, Client& client, std::chrono::nanoseconds by) {
  clock.advance(by);
  return settle(client);
}

bool advance(FreezableClock& clock, Client& client, std::chrono::nanoseconds by) {
  if (!clock.frozen()) return false;
  clock.advance(by);
  return settle(client);
}

bool advance_in_steps(ManualClock& clock, Client& client, std::chrono::nanoseconds total,
                      std::chrono::nanoseconds step) {
  return steps(clock, client, total, step);
}

bool advance_in_steps(FreezableClock& clock, Client& client, std::chrono::nanoseconds total,
                      std::chrono::nanoseconds step) {
  return steps(clock, client, total, step);
}

bool thaw(FreezableClock& clock, Client& client) {
  clock.thaw();
  return settle(client);
}

}  // namespace sluice::test
