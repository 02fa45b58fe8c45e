#pragma once
// A Client whose HTTP thread runs on a test's clock (ClientAccess::create): a
// ManualClock, or a FreezableClock that the test freezes at an event; and settle(),
// the step that makes a move of that clock, or anything the test did before (a read
// that resumed a stream, a dropped body), take effect before the test looks. With
// these a hold, an idle timeout or a sweep is a move of the clock followed by a
// settle, never a real-time sleep that hopes the HTTP thread got there.
// Ownership: free functions; the clock outlives the Client. Test threads only, never
// the HTTP thread (settle() waits for it).

#include <chrono>

#include "core/time_source.hpp"
#include "sluice/client.hpp"
#include "support/freezable_clock.hpp"
#include "support/manual_clock.hpp"

namespace sluice::test {

/// Client::create with the HTTP thread's loop on `clock`: its timers (idle and total
/// timeouts, the sweep, the h3 fallback, QUIC's own) fire by that clock's time.
Result<Client> client_on(const TimeSource& clock, ClientOptions options = {});

/// Returns true once the Client's HTTP thread has run a whole turn that began after
/// this call: that turn read the clock, ran every timer then due and every task posted
/// before this call (a resume, a drop, a cancel), and finished its turn-end work (the
/// flushes and reader wake-ups its events asked for). False if the HTTP thread is gone
/// or did not get there within `deadline` (a hang guard, not a pace).
bool settle(Client& client, std::chrono::milliseconds deadline = std::chrono::seconds(30));

/// Moves the clock by `by`, then settle(): every timer due by the new time has fired.
/// A FreezableClock must be frozen (false otherwise: a running clock is not the
/// test's to move). A periodic timer (the sweep, an idle check) fires at most once
/// per turn: move in steps no longer than its period (advance_in_steps).
bool advance(ManualClock& clock, Client& client, std::chrono::nanoseconds by);
bool advance(FreezableClock& clock, Client& client, std::chrono::nanoseconds by);

/// advance() by `step` until the clock has moved by `total`: a hold of `total` of the
/// HTTP thread's time in which every timer runs each time it comes due (at the
/// resolution of `step`).
bool advance_in_steps(ManualClock& clock, Client& client, std::chrono::nanoseconds total,
                      std::chrono::nanoseconds step);
bool advance_in_steps(FreezableClock& clock, Client& client, std::chrono::nanoseconds total,
                      std::chrono::nanoseconds step);

/// Lets a frozen clock run on with the system's, and wakes the HTTP thread so that it
/// sleeps by the running clock again (settle()).
bool thaw(FreezableClock& clock, Client& client);

}  // namespace sluice::test
