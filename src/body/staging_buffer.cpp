#include "body/staging_buffer.hpp"

#include "body/host_dispatch.hpp"

#include <algorithm>
#include <cstring>
#include <utility>

namespace sluice {

namespace {
// Staged bytes live in blocks of a quarter of the allowance, between these bounds: a
// receive (64 KiB) fills about one, a held body wastes at most one block's tail, and
// a drained block is reused rather than freed (one spare per buffer).
constexpr std::size_t kMinSegment = 4 * 1024;
constexpr std::size_t kMaxSegment = 256 * 1024;
// A receive in place gets at least this much room (or what it asks, if less): a tail
// block with less left opens a new one rather than cut the receive short.
constexpr std::size_t kMinPrepared = 16 * 1024;
// Callback mode hands bytes over in pieces no larger than this.
constexpr std::size_t kCallbackPiece = 64 * 1024;

std::size_t segment_size_for(std::size_t allowance) {
  return std::clamp(allowance / 4, kMinSegment, kMaxSegment);
}
}  // namespace

StagingBuffer::StagingBuffer(std::size_t allowance, Notify notify_http_thread,
                             std::shared_ptr<StagedBudget> budget, const TimeSource& clock)
    : notify_(std::move(notify_http_thread)),
      budget_(std::move(budget)),
      clock_(clock),
      allowance_(std::max<std::size_t>(allowance, 1)),
      queue_(segment_size_for(allowance_)) {}

StagingBuffer::~StagingBuffer() {
  if (budget_) budget_->remove(queue_.size());
}

// Below half the allowance, or empty (an allowance of 1 byte has no half).
bool StagingBuffer::below_resume_locked() const {
  return queue_.empty() || queue_.size() < allowance_ / 2;
}

// Counted before the signal turns: whoever sees it flowing sees the count moved.
void StagingBuffer::end_pause_locked() {
  pauses_ended_.fetch_add(1, std::memory_order_release);
  signal_.store(Signal::flowing, std::memory_order_release);
}

std::size_t StagingBuffer::allowance() const {
  std::lock_guard lock(mu_);
  return allowance_;
}

std::size_t StagingBuffer::room() const {
  std::lock_guard lock(mu_);
  return queue_.size() >= allowance_ ? 0 : allowance_ - queue_.size();
}

// HTTP thread. A grown allowance that ends a pause posts the resume a reader's take
// would have posted: the transport holds the stream paused until it hears one (h2/h3
// give no credit and arm no quiet deadline for a paused stream), and without it a
// stream whose window grew while its reader held it paused would wait forever.
void StagingBuffer::set_allowance(std::size_t bytes) {
  bool resumed = false;
  {
    std::lock_guard lock(mu_);
    resumed = set_allowance_locked(bytes);
  }
  if (resumed) notify_();
}

bool StagingBuffer::set_allowance_locked(std::size_t bytes) {
  allowance_ = std::max<std::size_t>(bytes, 1);
  queue_.set_segment_size(segment_size_for(allowance_));
  // A reader that keeps up cycles through its allowance's worth of blocks: keeping
  // them spares the heap a free and the next receive its page faults. The sweep frees
  // them once the reader pauses; a cut allowance lets them go as they drain.
  queue_.set_spare_limit(allowance_);
  const bool paused_now = signal_.load(std::memory_order_relaxed) == Signal::paused;
  if (!paused_now && queue_.size() >= allowance_) {
    paused_since_ = clock_.now();
    signal_.store(Signal::paused, std::memory_order_release);
  } else if (paused_now && below_resume_locked()) {
    end_pause_locked();
    return true;
  }
  return false;
}

void StagingBuffer::append(std::span<const std::byte> bytes) {
  std::lock_guard lock(mu_);
  // Nobody will read, or the body already failed (a cancel from the consumer's
  // thread lands before the HTTP thread hears of it): count nothing, keep nothing.
  if (reader_gone_ || end_ != End::open) {
    queue_.end_prepare();
    return;
  }
  // Bytes received into the prepared room are already in place; others are copied.
  if (!queue_.commit_in_place(bytes)) queue_.append(bytes);
  if (budget_) budget_->add(bytes.size());
  if (queue_.size() >= allowance_ && !paused()) {
    paused_since_ = clock_.now();
    signal_.store(Signal::paused, std::memory_order_release);
  }
}

std::span<std::byte> StagingBuffer::prepare(std::size_t max) {
  std::lock_guard lock(mu_);
  if (reader_gone_ || end_ != End::open || max == 0) return {};
  return queue_.prepare(max, kMinPrepared);
}

void StagingBuffer::wake_reader() {
  bool sleeper = false;
  {
    std::lock_guard lock(mu_);
    sleeper = waiting_readers_ > 0 && !queue_.empty();
  }
  if (sleeper) readable_.notify_one();
}

void StagingBuffer::finish(Headers trailers, TimePoint at) {
  {
    std::lock_guard lock(mu_);
    if (end_ != End::open) return;
    end_ = End::done;
    ended_at_ = at;
    trailers_ = std::move(trailers);
  }
  readable_.notify_all();
}

void StagingBuffer::fail(Error error, std::optional<TimePoint> at, Staged staged) {
  {
    std::lock_guard lock(mu_);
    if (!ended_at_) ended_at_ = at;
    if (end_ != End::open) return;
    end_ = End::failed;
    error_ = std::move(error);
    // The bytes stay in the queue (a lend may still point into them) until the
    // buffer goes; readers and callbacks simply see the end first.
    error_first_ = staged == Staged::withheld;
  }
  readable_.notify_all();
}

std::optional<TimePoint> StagingBuffer::ended_at() const {
  std::lock_guard lock(mu_);
  return ended_at_;
}

void StagingBuffer::expect_body_size(std::uint64_t size) {
  std::lock_guard lock(mu_);
  // Capped by the largest block there is: a grown allowance may stage more of it.
  queue_.expect_total(static_cast<std::size_t>(std::min<std::uint64_t>(size, kMaxSegment)));
}

bool StagingBuffer::take_locked(std::size_t n) {
  queue_.consume(n);
  if (budget_) budget_->remove(n);
  taken_ += n;
  bool resume = false;
  if (report_at_ != 0 && taken_ >= report_at_) {
    report_at_ = 0;
    resume = true;  // the transport asked to hear of this much taken
  }
  if (queue_.empty() && budget_held_) {
    budget_held_ = false;
    resume = true;  // the reader has nothing: its stream may receive again
  }
  if (below_resume_locked() && signal_.load(std::memory_order_relaxed) == Signal::paused) {
    end_pause_locked();
    resume = true;
  }
  return resume;
}

bool StagingBuffer::wait_readable(std::unique_lock<std::mutex>& lock, Deadline deadline) {
  auto ready = [this] { return !queue_.empty() || end_ != End::open; };
  if (ready()) return true;
  ++waiting_readers_;
#if SLUICE_TEST_HOOKS
  if (on_reader_waits_) on_reader_waits_();
#endif
  bool arrived = true;
  if (deadline) {
    arrived = readable_.wait_until(lock, *deadline, ready);
  } else {
    readable_.wait(lock, ready);
  }
  --waiting_readers_;
  return arrived;
}

bool StagingBuffer::give_back_locked() {
  if (lent_ == 0) return false;
  const std::size_t n = std::exchange(lent_, 0);
  return take_locked(n);
}

template <class T, class Serve>
Result<std::optional<T>> StagingBuffer::take_for_reader(Deadline deadline, T at_end, Serve serve) {
  std::unique_lock lock(mu_);
  bool resume = give_back_locked();
  const bool arrived = wait_readable(lock, deadline);
  std::optional<Result<std::optional<T>>> outcome;
  if (!arrived) {
    outcome = std::optional<T>{};
  } else if (!queue_.empty() && !error_first_) {  // bytes that arrived before a failure
    outcome = std::optional<T>{serve(resume)};
  } else if (end_ == End::failed) {
    outcome = *error_;
  } else {
    outcome = std::optional<T>{std::move(at_end)};
  }
  lock.unlock();
  if (resume) notify_();
  return std::move(*outcome);
}

Result<std::optional<std::size_t>> StagingBuffer::read(std::span<std::byte> into,
                                                       Deadline deadline) {
  return take_for_reader(deadline, std::size_t{0}, [&](bool& resume) {
    const std::size_t n = queue_.copy_front(into);
    resume = take_locked(n) || resume;
    return n;
  });
}

Result<std::optional<StagingBuffer::Lent>> StagingBuffer::lend(std::size_t max, Deadline deadline) {
  return take_for_reader(deadline, Lent{}, [&](bool&) {
    // Lent bytes stay staged: the allowance and the flow-control credit count them until
    // they come back, so a reader that keeps a chunk holds its stream like one that
    // has not read it.
    const std::span<const std::byte> run = queue_.front(max);
    lent_ = run.size();
    return Lent{run, ++lend_id_};
  });
}

void StagingBuffer::give_back(std::uint64_t id) {
  bool resume = false;
  {
    std::lock_guard lock(mu_);
    if (id == 0 || id != lend_id_) return;
    resume = give_back_locked();
  }
  if (resume) notify_();
}

void StagingBuffer::set_callbacks(BodyReader::DataCallback on_data,
                                  BodyReader::EndCallback on_end) {
  {
    std::lock_guard lock(mu_);
    on_data_ = std::move(on_data);
    on_end_ = std::move(on_end);
  }
  if (!notify_()) deliver_here();  // the HTTP thread delivers what is already staged
}

void StagingBuffer::resume_callbacks() {
  {
    std::lock_guard lock(mu_);
    callbacks_paused_ = false;
    ++callback_resumes_;
  }
  // With host dispatch the delivery runs on the host's thread anyway: queue it there
  // straight away. Through the HTTP thread, a reader that resumes after each piece
  // (the Python binding) waited for two thread wake-ups per piece. Giving pieces back
  // tells the HTTP thread when the stream may receive again.
  if (host_) {
    queue_host_delivery();
  } else if (!notify_()) {
    deliver_here();
  }
}

void StagingBuffer::deliver_here() {
  // Nothing appends any more (the Client is gone), so this thread may hand pieces
  // over as the HTTP thread would; with host dispatch, as dispatch() would.
  if (host_) {
    queue_host_delivery();
  } else {
    deliver_callbacks();
  }
}

void StagingBuffer::queue_host_delivery() {
  {
    std::lock_guard lock(mu_);
    // A delivery waits already, or the reader paused with bytes still to hand over:
    // then its resume queues the next one. Queuing anyway would cost the HTTP thread
    // an eventfd write, and the host a wake-up, for each receive while it is paused.
    if (host_delivery_queued_ || (callbacks_paused_ && !queue_.empty() && !error_first_)) return;
    host_delivery_queued_ = true;
  }
  host_->post([self = shared_from_this()] { self->deliver_on_host(); });
}

bool StagingBuffer::begin_delivery_locked() {
  if (delivering_) {
    deliver_again_ = true;  // what this caller came for, the deliverer does next
    return false;
  }
  delivering_ = true;
  return true;
}

bool StagingBuffer::end_delivery_locked() {
  if (std::exchange(deliver_again_, false)) return false;
  delivering_ = false;
  return true;
}

bool StagingBuffer::deliver_callbacks() {
  std::unique_lock lock(mu_);
  if (!on_data_) return false;
  if (host_) {
    lock.unlock();
    queue_host_delivery();
    return false;
  }
  if (!begin_delivery_locked()) return false;
  const std::uint64_t taken_before = taken_;
  do {
    deliver_pieces_in_place(lock);
  } while (!end_delivery_locked());
  const bool delivered = taken_ != taken_before;
  deliver_end(lock);
  return delivered;
}

void StagingBuffer::deliver_pieces_in_place(std::unique_lock<std::mutex>& lock) {
  while (!callbacks_paused_ && !queue_.empty() && !error_first_) {
    // Handed over in place: only the delivering thread appends or frees blocks (the
    // HTTP thread, or any thread once it is gone), so the run stays put while
    // on_data runs unlocked.
    const std::span<const std::byte> piece = queue_.front(kCallbackPiece);
    auto on_data = on_data_;
    const std::uint64_t resumes_before = callback_resumes_;
    lock.unlock();
    const bool more = on_data(piece);
    lock.lock();
    take_locked(piece.size());  // the deliverer hears of the room itself: no post needed
    // The reader may learn of the pause inside on_data and call resume() on its own
    // thread before this lock is taken again: that resume cancels this pause, or
    // delivery would wait for a resume that already came.
    if (!more && callback_resumes_ == resumes_before) callbacks_paused_ = true;
  }
}

void StagingBuffer::deliver_end(std::unique_lock<std::mutex>& lock) {
  if ((!queue_.empty() && !error_first_) || end_ == End::open || end_delivered_ || !on_end_) return;
  end_delivered_ = true;
  auto on_end = std::move(on_end_);
  Result<void> status = end_ == End::failed ? Result<void>(*error_) : Result<void>();
  lock.unlock();
  on_end(std::move(status));
}

void StagingBuffer::deliver_on_host() {
  std::unique_lock lock(mu_);
  host_delivery_queued_ = false;
  if (!on_data_ || !begin_delivery_locked()) return;
  do {
    deliver_pieces_lent(lock);
  } while (!end_delivery_locked());
  deliver_end(lock);
}

void StagingBuffer::deliver_pieces_lent(std::unique_lock<std::mutex>& lock) {
  while (!callbacks_paused_ && !queue_.empty() && !error_first_) {
    const std::span<const std::byte> piece = queue_.front(kCallbackPiece);
    lent_ = piece.size();
    const std::uint64_t id = ++lend_id_;
    auto on_data = on_data_;
    const std::uint64_t resumes_before = callback_resumes_;
    lock.unlock();
    const bool more = on_data(piece);
    lock.lock();
    const bool resume = lend_id_ == id && give_back_locked();
    if (!more && callback_resumes_ == resumes_before) callbacks_paused_ = true;
    if (resume) {
      lock.unlock();
      notify_();  // room again: the HTTP thread may receive for this stream
      lock.lock();
    }
  }
}

std::size_t StagingBuffer::release_empty_capacity() {
  std::lock_guard lock(mu_);
  return queue_.release_unused();
}

std::size_t StagingBuffer::staged_bytes() const {
  std::lock_guard lock(mu_);
  return queue_.size();
}

std::size_t StagingBuffer::retained_capacity() const {
  std::lock_guard lock(mu_);
  return queue_.capacity();
}

bool StagingBuffer::reader_gone() const {
  std::lock_guard lock(mu_);
  return reader_gone_;
}

bool StagingBuffer::ended() const {
  std::lock_guard lock(mu_);
  return end_ != End::open;
}

StagingBuffer::Held StagingBuffer::held() const {
  std::lock_guard lock(mu_);
  return Held{queue_.size(), taken_};
}

void StagingBuffer::report_when_taken(std::uint64_t taken) {
  bool reached = false;
  {
    std::lock_guard lock(mu_);
    reached = taken != 0 && taken_ >= taken && !reader_gone_;
    report_at_ = reached ? 0 : taken;
  }
  if (reached) notify_();
}

bool StagingBuffer::hold_for_budget() {
  std::lock_guard lock(mu_);
  budget_held_ = !queue_.empty();
  return budget_held_;
}

std::size_t StagingBuffer::drop_staged() {
  std::lock_guard lock(mu_);
  const std::size_t dropped = queue_.size();
  if (budget_) budget_->remove(dropped);
  lent_ = 0;  // the reader is gone, and its lend with it (close_reader)
  queue_.clear();
  queue_.release_unused();
  return dropped;
}

void StagingBuffer::close_reader() {
  {
    std::lock_guard lock(mu_);
    // In callback mode the callbacks own the stream: dropping the handle ends nothing.
    if (reader_gone_ || on_data_) return;
    reader_gone_ = true;
    ++lend_id_;  // a chunk that outlives its reader gives nothing back
  }
  notify_();
}

Headers StagingBuffer::trailers() const {
  std::lock_guard lock(mu_);
  return trailers_;
}

}  // namespace sluice
