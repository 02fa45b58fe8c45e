#pragma once
// UploadBudget: bounds the owned request bodies (BytesBody) a Client holds before a
// transport has taken their last byte. A program that makes bodies faster than the
// sockets take them (300 uploads started at once, each body made just before its
// send) would otherwise pile them all up while connections are still being set up:
// Client::send waits while the bodies not yet taken would pass the limit, as
// BodyWriter::write waits for a streamed body. A body larger than the whole limit
// goes alone, so no send waits forever for room that can never be made.
// A wait also ends when the held bodies stopped moving (a server that reads no more
// until its response is read, by a caller that sends all its uploads before reading
// any answer, would otherwise never make room). The HTTP thread, not the waiting
// sender, judges that: while sends wait it calls check_stall() once per stall window,
// after that turn's socket events, and a window in which the transports took nothing
// lets the waiting sends go. A sender that timed the window itself let bodies pile up
// past the limit whenever a loaded machine kept the HTTP thread off the CPU for a
// window; a starved HTTP thread runs no check, so the bound holds.
// Each BytesSource holds an UploadShare and gives it back when the transport took its
// last byte (the release rule's moment) or when the body goes with its transfer.
// Thread-safety: any thread; guarded by mu_ (taken_: an atomic count). acquire()
// blocks its caller, so the HTTP thread (which gives shares back) never calls it with
// may_wait; check_stall() is the HTTP thread's.

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <utility>

#include "core/test_hooks.hpp"

namespace sluice {

/// How long the held bodies may stand still, as the HTTP thread sees it, before the
/// sends waiting for them go past the limit.
inline constexpr std::chrono::seconds kUploadStall{1};

class UploadBudget {
 public:
  /// `limit` 0: no bound. `watch` (any thread) asks the HTTP thread to call
  /// check_stall() every stall_window() from now on; it is called when a send starts
  /// waiting and nobody watches yet.
  explicit UploadBudget(std::size_t limit, std::function<void()> watch = {})
      : limit_(limit), watch_(std::move(watch)) {}

  /// Counts `bytes` as held, first waiting (when `may_wait`) while something is held
  /// and `bytes` more would pass the limit, until room is made or check_stall() finds
  /// the held bodies standing still.
  void acquire(std::size_t bytes, bool may_wait);
  void release(std::size_t bytes);
  /// A transport took `bytes` of a held body: the bodies are moving.
  void note_taken(std::size_t bytes);
  /// HTTP thread, every stall_window() while watching: if the transports took nothing
  /// since the last check (or since the watch began), the sends waiting now go past
  /// the limit. Returns whether to go on watching (some send still waits).
  bool check_stall();
  std::chrono::milliseconds stall_window() const;
  /// Owned bytes not yet taken by a transport.
  std::size_t held() const;
  /// How many acquires had to wait so far, and how many of those went past the limit
  /// because the held bodies stood still.
  std::uint64_t waits() const;
  std::uint64_t stalls() const;

#if SLUICE_TEST_HOOKS
  // Tests (core/test_hooks.hpp) lengthen the window so that only the bodies' being
  // taken ends a wait on a machine that may be slow to move them.
  void set_stall_window(std::chrono::milliseconds window);
#endif

 private:
  const std::size_t limit_;
  const std::function<void()> watch_;
  mutable std::mutex mu_;
  std::condition_variable room_;
  std::size_t held_ = 0;                                   // guarded by mu_
  std::uint64_t waits_ = 0;                                // guarded by mu_
  std::size_t waiting_ = 0;                                // guarded by mu_: sends waiting now
  bool watched_ = false;                                   // guarded by mu_
  std::uint64_t taken_at_check_ = 0;                       // guarded by mu_
  std::uint64_t stalls_ = 0;                               // guarded by mu_
  std::chrono::milliseconds stall_window_ = kUploadStall;  // guarded by mu_
  // Bytes of held bodies transports took, ever; any thread, no lock (a progress count).
  std::atomic<std::uint64_t> taken_{0};
};

/// One body's part of an UploadBudget, given back once (release(), or when destroyed).
/// Owned by the body's source: on the HTTP thread once its transfer runs.
class UploadShare {
 public:
  UploadShare() = default;
  UploadShare(std::shared_ptr<UploadBudget> budget, std::size_t bytes)
      : budget_(std::move(budget)), bytes_(bytes) {}
  UploadShare(UploadShare&& other) noexcept
      : budget_(std::move(other.budget_)), bytes_(std::exchange(other.bytes_, 0)) {}
  UploadShare& operator=(UploadShare&& other) noexcept;
  UploadShare(const UploadShare&) = delete;
  UploadShare& operator=(const UploadShare&) = delete;
  ~UploadShare() { release(); }

  void release() noexcept;
  /// A transport took `bytes` of this body (before it took the last one).
  void note_taken(std::size_t bytes) {
    if (budget_ && bytes_ > 0) budget_->note_taken(bytes);
  }

 private:
  std::shared_ptr<UploadBudget> budget_;
  std::size_t bytes_ = 0;
};

}  // namespace sluice
