#pragma once
// AfterTurnBin: objects that must outlive the current turn of the event loop (the
// code on the stack may be theirs: a connection closing from inside its own event
// handling, an origin's connector whose report emptied the origin) and go right after
// it. One posted task per turn frees everything retired in that turn, instead of a
// task and a shared_ptr for each object: a crawler that meets millions of origins
// pays for a turn, not for an origin.
// Ownership: HTTP thread only. The posted task shares the bin's contents, so what
// was retired is freed even when the bin's owner goes first.

#include <memory>
#include <utility>
#include <vector>

#include "core/event_loop.hpp"

namespace sluice {

template <class T>
class AfterTurnBin {
 public:
  explicit AfterTurnBin(EventLoop& loop) : loop_(loop) {}

  /// `object` is deleted after this turn, with everything else retired in it.
  void retire(std::unique_ptr<T> object) {
    if (object == nullptr) return;
    if (contents_->empty()) {
      loop_.post([contents = contents_] {
        // Moved out first: a destructor that retires another object starts the
        // next turn's batch instead of growing the vector being freed.
        auto doomed = std::exchange(*contents, {});
      });
    }
    contents_->push_back(std::move(object));
  }
  /// Objects waiting for the end of the turn.
  std::size_t waiting() const noexcept { return contents_->size(); }

 private:
  EventLoop& loop_;
  std::shared_ptr<std::vector<std::unique_ptr<T>>> contents_ =
      std::make_shared<std::vector<std::unique_ptr<T>>>();
};

}  // namespace sluice
