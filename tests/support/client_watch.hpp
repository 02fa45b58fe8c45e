#pragma once
// Waiting for a Client's state without polling it: everything a Client reports (its
// stats, what a BodyReader has staged, what its callbacks and trace recorded) changes
// in a turn of its HTTP thread, so wait_for_client() checks the condition there, at
// the end of every turn (EventLoop::add_turn_observer), and the waiting thread wakes
// the turn it comes true. No sleep, no poll interval: an idle Client costs nothing.
// Ownership: free functions for test threads, never the HTTP thread (the wait would
// block the turns it waits for).

#include <chrono>
#include <functional>

#include "sluice/client.hpp"

namespace sluice::test {

/// Returns true once `condition` held at the end of one of `client`'s HTTP thread
/// turns, from the turn that follows this call on. `condition` runs on the HTTP thread:
/// it may call client.stats() (answered there without a round trip) and read body
/// readers and test state, but must not block. False when the HTTP thread is gone or
/// the condition did not come true within `deadline` (a hang guard, not a pace).
bool wait_for_client(Client& client, std::function<bool()> condition,
                     std::chrono::milliseconds deadline = std::chrono::seconds(30));

/// How a slow reader's wait for the server ended (wait_for_refill).
enum class Refill { paused, ended, timed_out };

/// A slow reader's pause, for a Client with one transfer: after taking some bytes the
/// reader lets the server catch up, until the receiver paused at its mark again or
/// the transfer ended (the rest arrived), so that what it checks next sees the buffer
/// at its fullest, however fast its reads were. Settles first: the resume its reads
/// posted has run, so an old pause is not mistaken for a new one.
Refill wait_for_refill(Client& client,
                       std::chrono::milliseconds deadline = std::chrono::seconds(30));

}  // namespace sluice::test
