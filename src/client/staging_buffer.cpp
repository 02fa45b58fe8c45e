#include "client/staging_buffer.hpp"

#include <algorithm>
#include <cstring>

namespace sluice {

namespace {
// A drained queue keeps its block for reuse unless the block outgrew twice the mark
// (a burst); then it goes after the delivery that emptied it. Not the Client's
// release threshold: a reader drains its staging buffer on nearly every read, and a
// large mark (several MiB) would then cost a fresh block per mark of body.
constexpr std::size_t kRetainFactor = 2;
// Callback mode hands bytes over in pieces no larger than this.
constexpr std::size_t kCallbackPiece = 64 * 1024;
}  // namespace

StagingBuffer::StagingBuffer(std::size_t mark, Notify notify_http_thread,
                             std::shared_ptr<StagedBudget> budget, const TimeSource& clock)
    : mark_(std::max<std::size_t>(mark, 1)),
      notify_(std::move(notify_http_thread)),
      budget_(std::move(budget)),
      clock_(clock) {
  queue_.set_release_threshold(kRetainFactor * mark_);
}

StagingBuffer::~StagingBuffer() {
  if (budget_) budget_->remove(queue_.size());
}

std::size_t StagingBuffer::room() const {
  std::lock_guard lock(mu_);
  return queue_.size() >= mark_ ? 0 : mark_ - queue_.size();
}

void StagingBuffer::append(std::span<const std::byte> bytes, bool wake) {
  bool sleeper = false;
  {
    std::lock_guard lock(mu_);
    // Nobody will read, or the body already failed (a cancel from the consumer's
    // thread lands before the HTTP thread hears of it): count nothing, keep nothing.
    if (reader_gone_ || end_ != End::open) return;
    queue_.append(bytes);
    if (budget_) budget_->add(bytes.size());
    if (queue_.size() >= mark_ && !paused()) {
      paused_since_ = clock_.now();
      signal_.store(Signal::paused, std::memory_order_release);
    }
    sleeper = waiting_readers_ > 0;
  }
  // A futex wake per receive is the HTTP thread's largest cost after the copies:
  // skip it when no reader sleeps.
  if (wake && sleeper) readable_.notify_one();
}

void StagingBuffer::wake_reader() {
  bool sleeper = false;
  {
    std::lock_guard lock(mu_);
    sleeper = waiting_readers_ > 0 && !queue_.empty();
  }
  if (sleeper) readable_.notify_one();
}

void StagingBuffer::finish(Headers trailers) {
  {
    std::lock_guard lock(mu_);
    if (end_ != End::open) return;
    end_ = End::done;
    trailers_ = std::move(trailers);
  }
  readable_.notify_all();
}

void StagingBuffer::fail(Error error) {
  {
    std::lock_guard lock(mu_);
    if (end_ != End::open) return;
    end_ = End::failed;
    error_ = std::move(error);
  }
  readable_.notify_all();
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
  if (queue_.size() < mark_ / 2 &&
      signal_.load(std::memory_order_relaxed) == Signal::paused) {
    signal_.store(Signal::flowing, std::memory_order_release);
    resume = true;
  }
  return resume;
}

Result<std::optional<std::size_t>> StagingBuffer::read(
    std::span<std::byte> into, std::optional<std::chrono::steady_clock::time_point> deadline) {
  std::unique_lock lock(mu_);
  auto ready = [this] { return !queue_.empty() || end_ != End::open; };
  if (!ready()) {
    ++waiting_readers_;
    bool arrived = true;
    if (deadline) {
      arrived = readable_.wait_until(lock, *deadline, ready);
    } else {
      readable_.wait(lock, ready);
    }
    --waiting_readers_;
    if (!arrived) return std::optional<std::size_t>{};
  }
  // Bytes that arrived before a failure are still the reader's.
  if (!queue_.empty()) {
    const std::size_t n = std::min(into.size(), queue_.size());
    std::memcpy(into.data(), queue_.readable().data(), n);
    const bool resume = take_locked(n);
    lock.unlock();
    if (resume) notify_();
    return std::optional<std::size_t>{n};
  }
  if (end_ == End::failed) return *error_;
  return std::optional<std::size_t>{0};
}

void StagingBuffer::set_callbacks(BodyReader::DataCallback on_data,
                                  BodyReader::EndCallback on_end) {
  {
    std::lock_guard lock(mu_);
    on_data_ = std::move(on_data);
    on_end_ = std::move(on_end);
  }
  notify_();  // the HTTP thread delivers what is already staged
}

void StagingBuffer::resume_callbacks() {
  {
    std::lock_guard lock(mu_);
    callbacks_paused_ = false;
    ++callback_resumes_;
  }
  notify_();
}

bool StagingBuffer::deliver_callbacks() {
  std::unique_lock lock(mu_);
  if (!on_data_) return false;
  bool delivered = false;
  ByteQueue piece;
  while (!callbacks_paused_ && !queue_.empty()) {
    delivered = true;
    const std::size_t n = std::min(kCallbackPiece, queue_.size());
    piece.clear();
    piece.append(queue_.readable().first(n));
    take_locked(n);  // the HTTP thread is the caller: no resume post needed
    auto on_data = on_data_;
    const std::uint64_t resumes_before = callback_resumes_;
    lock.unlock();
    const bool more = on_data(piece.readable());
    lock.lock();
    // The reader may learn of the pause inside on_data and call resume() on its own
    // thread before this lock is taken again: that resume cancels this pause, or
    // delivery would wait for a resume that already came.
    if (!more && callback_resumes_ == resumes_before) callbacks_paused_ = true;
  }
  if (queue_.empty() && end_ != End::open && !end_delivered_ && on_end_) {
    end_delivered_ = true;
    auto on_end = std::move(on_end_);
    Result<void> status = end_ == End::failed ? Result<void>(*error_) : Result<void>();
    lock.unlock();
    on_end(std::move(status));
  }
  return delivered;
}

std::size_t StagingBuffer::release_empty_capacity() {
  std::lock_guard lock(mu_);
  return queue_.release_if_empty();
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
  queue_.clear();
  queue_.release_if_empty();
  return dropped;
}

void StagingBuffer::close_reader() {
  {
    std::lock_guard lock(mu_);
    // In callback mode the callbacks own the stream: dropping the handle ends nothing.
    if (reader_gone_ || on_data_) return;
    reader_gone_ = true;
  }
  notify_();
}

Headers StagingBuffer::trailers() const {
  std::lock_guard lock(mu_);
  return trailers_;
}

}  // namespace sluice
