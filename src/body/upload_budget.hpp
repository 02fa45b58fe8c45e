#pragma once
// UploadBudget: bounds the owned request bodies (BytesBody) a Client holds before a
// transport has taken their last byte. A program that makes bodies faster than the
// sockets take them (300 uploads started at once, each body made just before its
// send) would otherwise pile them all up while connections are still being set up:
// Client::send waits while the bodies not yet taken would pass the limit, as
// BodyWriter::write waits for a streamed body. A body larger than the whole limit
// goes alone, so no send waits forever for room that can never be made; and a wait
// ends when the transports took nothing of the held bodies for kUploadStall (a
// server that reads no more until its response is read, by a caller that sends all
// its uploads before reading any answer, would otherwise never make room).
// Each BytesSource holds an UploadShare and gives it back when the transport took its
// last byte (the release rule's moment) or when the body goes with its transfer.
// Thread-safety: any thread; guarded by mu_ (taken_: an atomic count). acquire()
// blocks its caller, so the HTTP thread (which gives shares back) never calls it with
// may_wait.

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <mutex>
#include <utility>

#include "core/test_hooks.hpp"

namespace sluice {

/// How long a send waits for the budget while no held body moves at all.
inline constexpr std::chrono::seconds kUploadStall{1};

class UploadBudget {
 public:
  /// `limit` 0: no bound.
  explicit UploadBudget(std::size_t limit) : limit_(limit) {}

  /// Counts `bytes` as held, first waiting (when `may_wait`) while something is held
  /// and `bytes` more would pass the limit, and the held bodies are being taken.
  void acquire(std::size_t bytes, bool may_wait);
  void release(std::size_t bytes);
  /// A transport took `bytes` of a held body: the bodies are moving.
  void note_taken(std::size_t bytes);
  /// Owned bytes not yet taken by a transport.
  std::size_t held() const;
  /// How many acquires had to wait so far.
  std::uint64_t waits() const;

#if SLUICE_TEST_HOOKS
  // Tests (core/test_hooks.hpp) drive the stall windows by hand: a window as long as
  // the test, ended by end_stall_window(), and a count of the windows waiting
  // acquires saw end, so a test waits for that event instead of for time to pass.
  void set_stall_window(std::chrono::milliseconds window);
  void end_stall_window();
  std::uint64_t stall_windows_ended() const;
#endif

 private:
  const std::size_t limit_;
  mutable std::mutex mu_;
  std::condition_variable room_;
  std::size_t held_ = 0;                                   // guarded by mu_
  std::uint64_t waits_ = 0;                                // guarded by mu_
  std::chrono::milliseconds stall_window_ = kUploadStall;  // guarded by mu_
  bool window_cut_ = false;                                // guarded by mu_
  std::uint64_t windows_ended_ = 0;                        // guarded by mu_
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
