#pragma once
// StagedBudget: the client-wide bound on body bytes staged for readers
// (ClientOptions::memory.staged_bytes_budget). Every staging buffer of a Client adds what
// the HTTP thread stages and subtracts what its reader takes. While the total is at
// or above the budget, the HTTP thread stops receiving for every stream whose reader
// still has bytes waiting (a stream whose reader has nothing keeps receiving, so a
// reader that reads always makes progress); once readers bring the total under the
// budget, one notification reaches the HTTP thread, which resumes them.
// Thread-safety: any thread (atomics only). Shared by the ClientCore and every
// staging buffer (shared_ptr: a body reader may outlive its Client).

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <functional>

namespace sluice {

class StagedBudget {
 public:
  /// Posts to the HTTP thread; runs on the thread whose take crossed the budget.
  using Notify = std::function<void()>;

  /// `limit` 0: no budget (the total is still counted for stats).
  StagedBudget(std::size_t limit, Notify under_budget);

  bool limited() const noexcept { return limit_ != 0; }
  std::size_t staged() const noexcept { return staged_.load(std::memory_order_relaxed); }

  /// The HTTP thread staged `n` bytes.
  void add(std::size_t n) noexcept { staged_.fetch_add(n); }
  /// A reader took (or a dropped reader freed) `n` staged bytes.
  void remove(std::size_t n);
  /// HTTP thread: whether the total is at or above the budget. When it is, the next
  /// remove() that brings it under notifies (once).
  bool exhausted();
  /// Bytes that still fit under the budget (SIZE_MAX without one).
  std::size_t left() const noexcept {
    if (!limited()) return SIZE_MAX;
    const std::size_t now = staged();
    return now >= limit_ ? 0 : limit_ - now;
  }
  /// How many times the HTTP thread started waiting for readers (stats).
  std::uint64_t waits() const noexcept { return waits_.load(std::memory_order_relaxed); }

 private:
  const std::size_t limit_;
  const Notify under_budget_;
  std::atomic<std::size_t> staged_{0};
  // The HTTP thread held streams back and waits for the total to fall under the
  // budget. Sequentially consistent with staged_, so that a remove() racing with
  // exhausted() either sees the flag or is seen by exhausted()'s second look.
  std::atomic<bool> waiting_{false};
  std::atomic<std::uint64_t> waits_{0};
};

}  // namespace sluice
