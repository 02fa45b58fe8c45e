#pragma once
// SourceQueue: the request-body counterpart of StagingBuffer. A producer thread
// writes; the HTTP thread takes bytes only as fast as the transport sends them. At
// or above the mark the producer waits.
// Thread-safety: any thread; everything below is guarded by mu_.

#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <functional>
#include <mutex>
#include <optional>
#include <string>

#include "core/byte_queue.hpp"
#include "sluice/error.hpp"

namespace sluice {

class SourceQueue {
 public:
  explicit SourceQueue(std::size_t mark) : mark_(mark == 0 ? 1 : mark) {}

  // --- producer ---
  /// Appends when below the mark, waiting until `deadline` otherwise. Returns false
  /// on timeout.
  Result<bool> write(std::span<const std::byte> bytes,
                     std::optional<std::chrono::steady_clock::time_point> deadline);
  void close();
  void abort(std::string reason);
  /// `ready` runs once, on the HTTP thread, when the queue is below the mark or the
  /// request ended (then the next write fails with why); with a user runner set, it
  /// is handed to that instead.
  void when_writable(std::function<void()> ready);
  /// Bytes written and not yet taken: what the mark is measured against.
  std::size_t queued() const;

  // --- HTTP thread ---
  struct Taken {
    std::size_t bytes = 0;
    bool closed = false;         ///< the producer closed and everything was taken
    std::optional<Error> error;  ///< the producer aborted
  };
  /// Moves up to `max` bytes into `out`.
  Taken take(ByteQueue& out, std::size_t max);
  /// `wake` is called (from the producer's thread; it must post) when bytes or the
  /// end arrive while the HTTP thread waits.
  void set_consumer_waker(std::function<void()> wake);
  /// `post` runs a task on the HTTP thread; needed for when_writable.
  void set_poster(std::function<void(std::function<void()>)> post);
  /// With host dispatch: `run` takes when_writable callbacks instead of the HTTP
  /// thread (it queues them for the host's dispatch()).
  void set_user_runner(std::function<void(std::function<void()>)> run);
  /// The request ended; writers fail from now on with `reason`, and a waiting
  /// when_writable callback runs (HTTP thread).
  void shut(Error reason);

 private:
  void wake_consumer_locked(std::unique_lock<std::mutex>& lock);

  const std::size_t mark_;
  mutable std::mutex mu_;
  std::condition_variable writable_;
  ByteQueue queue_;
  bool closed_ = false;
  std::optional<std::string> aborted_;
  std::optional<Error> shut_;
  bool consumer_waiting_ = false;
  std::function<void()> consumer_waker_;
  std::function<void(std::function<void()>)> post_;
  std::function<void(std::function<void()>)> run_user_;
  std::function<void()> writable_callback_;
};

}  // namespace sluice
