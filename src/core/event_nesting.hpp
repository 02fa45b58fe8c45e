#pragma once
// EventNesting: the rule every connection's events follow (STYLE 3: one after_event).
// Work runs as an event; the outermost event ends in one place (flush output, re-arm
// the deadline). Work that arrives while an event runs (a sink calling back in, a
// library callback queuing output) runs at once and asks the outer event to go
// round again instead of finishing on its own, so output is flushed once, last.
// Used by StreamDriver (h1, h2) and DatagramDriver (QUIC).
// Ownership: a member of its connection; HTTP thread only.

#include <utility>

namespace sluice {

class EventNesting {
 public:
  /// Runs `work`; in the outermost event `finish` follows and true is returned.
  template <class Work, class Finish>
  bool run(Work&& work, Finish&& finish) {
    if (in_event_) {
      std::forward<Work>(work)();
      again_ = true;
      return false;
    }
    in_event_ = true;
    std::forward<Work>(work)();
    std::forward<Finish>(finish)();
    in_event_ = false;
    return true;
  }
  bool in_event() const noexcept { return in_event_; }
  /// Work done outside run() that needs the finishing round again.
  void ask_again() noexcept { again_ = true; }
  /// For `finish`'s rounds: whether anything asked for another round since the last
  /// call, clearing the request.
  bool take_again() noexcept { return std::exchange(again_, false); }

 private:
  bool in_event_ = false;
  bool again_ = false;
};

}  // namespace sluice
