#pragma once
// StagingBuffer: the one place decoded response bytes wait between the HTTP thread
// and a consumer thread. A consumer copies them out (read) or borrows them in place
// (lend, then give_back): lent bytes stay staged, and count against the allowance,
// until they are given back. At its allowance it signals Paused and the transport
// stops taking bytes for the stream; a consumer that drains it below half the
// allowance flips it back to Flowing and posts one resume to the HTTP thread. The
// allowance is the exchange's (mux/stream_credit.hpp): the HTTP thread sets it as it
// grows while the reader keeps up, and as it falls back after a long pause. The transport may also
// ask to hear once readers took some amount (report_when_taken): flow-controlled
// protocols give credit back for what was taken, and a reader below its allowance would
// otherwise never be heard of. Either way, at most one post per reader wake-up.
// Thread-safety: any thread; the queue and end state are guarded by mu_. signal_ is
// atomic so the HTTP thread can test it without the lock.

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <span>

#include "body/staged_budget.hpp"
#include "body/staged_segments.hpp"
#include "core/byte_queue.hpp"
#include "core/test_hooks.hpp"
#include "core/time_source.hpp"
#include "sluice/body.hpp"
#include "sluice/error.hpp"
#include "sluice/headers.hpp"

namespace sluice {

class HostDispatch;

class StagingBuffer : public std::enable_shared_from_this<StagingBuffer> {
 public:
  enum class Signal { flowing, paused };
  /// Runs on the thread that caused it; it must only post to the HTTP thread.
  /// Returns false once the HTTP thread is gone (the Client was destroyed): callbacks
  /// a reader registers or resumes then run on the reader's own thread, since no
  /// other thread will ever run them.
  using Notify = std::function<bool()>;

  /// `budget`: the Client's staged-bytes total, which this buffer adds to and takes
  /// from; null for none. `clock` says when a pause began (read on the HTTP thread
  /// only, while it runs: the Client's loop).
  StagingBuffer(std::size_t allowance, Notify notify_http_thread,
                std::shared_ptr<StagedBudget> budget = nullptr,
                const TimeSource& clock = SteadyClock::instance());
  ~StagingBuffer();

  std::size_t allowance() const;
  bool paused() const noexcept { return signal_.load(std::memory_order_acquire) == Signal::paused; }
  /// How many pauses a reader's take has ended. The take ends a pause at once, but
  /// the HTTP thread hears of it only when it runs the posted resume: a timer that
  /// runs between the two sees the count move where paused() is already false.
  std::uint64_t pauses_ended() const noexcept {
    return pauses_ended_.load(std::memory_order_acquire);
  }
  /// Body bytes the response brought so far, before decoding (BodyReader::
  /// bytes_received). Any thread.
  std::uint64_t received() const noexcept { return received_.load(std::memory_order_relaxed); }
  /// HTTP thread: `bytes` more arrived for this body (staged, or given to its decoder).
  void note_received(std::size_t bytes) noexcept {
    received_.fetch_add(bytes, std::memory_order_relaxed);
  }

  // --- HTTP thread ---
  /// Bytes that fit below the allowance now (for output-bounded decoding, and the
  /// most an HTTP/1.1 receive may bring).
  std::size_t room() const;
  /// The allowance is now `bytes`: Paused at or above it, Flowing again below half.
  void set_allowance(std::size_t bytes);
  /// Stages bytes (always takes all: a receive is bounded); at or above the allowance
  /// the signal turns Paused. Wakes nobody: the caller calls wake_reader() once the
  /// turn's appends are done (an h2 receive carries many DATA frames, and a futex
  /// wake per append was the HTTP thread's largest cost after the copies).
  void append(std::span<const std::byte> bytes);
  /// Free room for receiving body bytes in place (at most `max`); empty when nothing
  /// may be staged (the reader went away, the body ended). An append() of bytes
  /// that lie in it, as received, stages them without a copy. The room stays
  /// reserved until the next prepare(), an append of other bytes, or the sweep.
  std::span<std::byte> prepare(std::size_t max);
  /// Staged bytes and every byte readers took so far, read together.
  struct Held {
    std::size_t staged = 0;
    std::uint64_t taken = 0;
  };
  Held held() const;
  /// Posts one notify once readers have taken `taken` bytes in all (a Held::taken
  /// plus what the transport wants taken before it hears again); at once if they
  /// already have. A later call replaces it; 0 cancels.
  void report_when_taken(std::uint64_t taken);
  /// When the signal last turned Paused (meaningful while paused()).
  std::chrono::steady_clock::time_point paused_since() const noexcept { return paused_since_; }
  /// The Client's budget holds this stream back: true (and the reader's next take
  /// that empties the buffer posts a resume) unless the buffer is already empty, in
  /// which case the stream may receive.
  bool hold_for_budget();
  /// Wakes a reader sleeping in read(), if any.
  void wake_reader();
  /// The body ended whole `at` (the HTTP thread's now).
  void finish(Headers trailers, TimePoint at);
  /// What readers get of the bytes staged when the body fails.
  enum class Staged {
    delivered,  ///< they arrived before the failure: readers take them, then the error
    withheld,   ///< a hard deadline passed (the total timeout): the error comes first
  };
  /// Also from the consumer's thread (PendingState::cancel_request): once failed,
  /// appends are dropped, so readers get what was staged before it (unless
  /// `staged` withholds it), then `error`.
  /// `at`: when, from the HTTP thread (the consumer's cancel has no clock to read:
  /// the HTTP thread's fail that follows it supplies the time).
  void fail(Error error, std::optional<TimePoint> at = std::nullopt,
            Staged staged = Staged::delivered);
  /// When the body ended (finish or fail with a time); nullopt before.
  std::optional<TimePoint> ended_at() const;
  /// Delivers staged bytes to callbacks, when the reader chose callback mode.
  /// Returns whether it handed over any bytes (so there is room again). With host
  /// dispatch it hands over nothing here: it queues one delivery for the host's
  /// dispatch() (deliver_on_host), and returns false.
  bool deliver_callbacks();
  /// Before the buffer is shared: callbacks run through the host's queue.
  void set_host_dispatch(std::shared_ptr<HostDispatch> host) { host_ = std::move(host); }
  /// The body's length is known (Content-Length, nothing to decode): short bodies
  /// are staged in blocks of their own size.
  void expect_body_size(std::uint64_t size);
  /// The sweep: frees the queue's block if it is empty. Returns bytes freed.
  std::size_t release_empty_capacity();
  std::size_t staged_bytes() const;
  std::size_t retained_capacity() const;
  bool reader_gone() const;
  bool ended() const;
  /// After the reader went away: frees what was staged; returns how many bytes.
  std::size_t drop_staged();

  // --- consumer side (BodyReader) ---
  using Deadline = std::optional<std::chrono::steady_clock::time_point>;
  /// Copies staged bytes out; waits until `deadline` (forever when nullopt).
  /// Returns nullopt on timeout, 0 at the end. Gives back what is lent first.
  Result<std::optional<std::size_t>> read(std::span<std::byte> into, Deadline deadline);
  /// Bytes lent in place: valid until give_back(id) or the next read or lend.
  struct Lent {
    std::span<const std::byte> bytes;  // empty at the end of the body
    std::uint64_t id = 0;
  };
  /// Lends the first staged run (at most `max` bytes; one block's worth) after giving
  /// back what is lent; waits like read. Returns nullopt on timeout.
  Result<std::optional<Lent>> lend(std::size_t max, Deadline deadline);
  /// Ends lend `id` (a stale id does nothing): its bytes count as taken now.
  void give_back(std::uint64_t id);
  void set_callbacks(BodyReader::DataCallback on_data, BodyReader::EndCallback on_end);
  void resume_callbacks();
  void close_reader();
  Headers trailers() const;
#if SLUICE_TEST_HOOKS
  /// For tests (core/test_hooks.hpp) that need a reader really asleep in read() or
  /// lend() before they append: `observer` runs each time a reader starts waiting,
  /// under mu_ (so an append that follows it finds the reader waiting); it must not
  /// call into the buffer. Set before the buffer is shared.
  void on_reader_waits(std::function<void()> observer) { on_reader_waits_ = std::move(observer); }
#endif

 private:
  enum class End { open, done, failed };
  /// Under mu_: sets the allowance; true when that ended a pause.
  bool set_allowance_locked(std::size_t bytes);
  /// Under mu_: turns a paused buffer flowing (the pause counted first).
  void end_pause_locked();
  /// Under mu_: whether the staged bytes are low enough to flow again.
  bool below_resume_locked() const;
  /// Under mu_: after taking bytes, flip to Flowing below half the allowance.
  bool take_locked(std::size_t n);
  /// Under mu_ (held by `lock`): waits until something is staged or the body ended.
  /// False on timeout.
  bool wait_readable(std::unique_lock<std::mutex>& lock, Deadline deadline);
  /// The reader's side of read and lend: gives back what is lent, waits, then either
  /// times out (nullopt), serves staged bytes through `serve` (called under mu_ with
  /// the resume flag it may set), fails with the body's error, or ends (`at_end`).
  template <class T, class Serve>
  Result<std::optional<T>> take_for_reader(Deadline deadline, T at_end, Serve serve);
  /// Under mu_: ends the current lend; whether a resume must be posted.
  bool give_back_locked();
  /// Host dispatch: the delivery deliver_callbacks() queued, on the host's thread.
  /// Each piece is lent while on_data runs (the HTTP thread keeps appending), and
  /// given back after, so a paused callback keeps its bytes staged and its stream
  /// held at its allowance.
  void deliver_on_host();
  /// Under mu_ (held by `lock`, which it releases if it calls on_end): once the last
  /// byte went to on_data and the body ended, calls on_end once.
  void deliver_end(std::unique_lock<std::mutex>& lock);
  /// The one-deliverer rule: pieces are handed over in place and taken after
  /// on_data returns, so two threads delivering at once would hand the same piece
  /// twice. begin_delivery() (under mu_) claims delivery, or records that the
  /// current deliverer must go round once more; end_delivery() releases it unless
  /// such a round was asked for.
  bool begin_delivery_locked();
  bool end_delivery_locked();
  /// Callback delivery on this thread, when the HTTP thread that would run it is gone.
  void deliver_here();
  /// Host dispatch: queues one deliver_on_host() for the host's dispatch() unless one
  /// waits already (HostDispatch runs it here once the Client is gone).
  void queue_host_delivery();
  /// One round of delivery, under mu_ and the delivery claim.
  void deliver_pieces_in_place(std::unique_lock<std::mutex>& lock);
  void deliver_pieces_lent(std::unique_lock<std::mutex>& lock);

  const Notify notify_;
  const std::shared_ptr<StagedBudget> budget_;
  const TimeSource& clock_;
  std::atomic<Signal> signal_{Signal::flowing};
  std::atomic<std::uint64_t> pauses_ended_{0};            // written under mu_ by readers
  std::atomic<std::uint64_t> received_{0};                // written by the HTTP thread only
  std::chrono::steady_clock::time_point paused_since_{};  // HTTP thread (only it pauses)

  mutable std::mutex mu_;
  std::condition_variable readable_;
  std::size_t allowance_;              // guarded by mu_; set by the HTTP thread
  StagedSegments queue_;               // guarded by mu_; lent bytes at its front
  std::size_t lent_ = 0;               // guarded by mu_: bytes of the current lend
  std::uint64_t lend_id_ = 0;          // guarded by mu_: the current (or last) lend
  End end_ = End::open;                // guarded by mu_
  std::optional<Error> error_;         // guarded by mu_
  bool error_first_ = false;           // guarded by mu_: failed with Staged::withheld
  Headers trailers_;                   // guarded by mu_
  std::optional<TimePoint> ended_at_;  // guarded by mu_
  bool reader_gone_ = false;           // guarded by mu_
  int waiting_readers_ = 0;            // guarded by mu_; appends wake only these
#if SLUICE_TEST_HOOKS
  std::function<void()> on_reader_waits_;  // set before sharing, then read-only
#endif
  BodyReader::DataCallback on_data_;  // guarded by mu_; called on the HTTP thread
  BodyReader::EndCallback on_end_;    // guarded by mu_
  bool callbacks_paused_ = false;     // guarded by mu_
  // Counts resume_callbacks() calls, so that a resume arriving while on_data runs
  // (after it decided to return false, before the pause is recorded) is not lost.
  std::uint64_t callback_resumes_ = 0;  // guarded by mu_
  bool budget_held_ = false;            // guarded by mu_
  std::uint64_t taken_ = 0;             // guarded by mu_: bytes readers took, ever
  std::uint64_t report_at_ = 0;         // guarded by mu_: notify once taken_ reaches it
  bool end_delivered_ = false;          // guarded by mu_
  bool delivering_ = false;             // guarded by mu_: a thread is delivering now
  bool deliver_again_ = false;          // guarded by mu_: it must go round once more
  std::shared_ptr<HostDispatch> host_;  // set before sharing, then read-only
  bool host_delivery_queued_ = false;   // guarded by mu_
};

}  // namespace sluice
