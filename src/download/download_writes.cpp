#include "download/download_writes.hpp"

#include <utility>

namespace sluice {

RangeWrites::RangeWrites(FileWriter& writer, std::uint64_t range_start,
                         std::atomic<std::uint64_t>& done)
    : writer_(writer),
      done_(done),
      base_(range_start),
      contiguous_end_(range_start + done.load(std::memory_order_acquire)) {}

RangeWrites::~RangeWrites() {
  while (in_flight_ > 0) collect(true);
}

std::string RangeWrites::take_buffer() {
  if (spare_.empty()) return {};
  std::string buffer = std::move(spare_.back());
  spare_.pop_back();
  return buffer;
}

Result<void> RangeWrites::submit(std::string chunk, std::uint64_t offset, const Between& between) {
  collect(false);
  while (in_flight_ >= kMaxInFlight && !error_) {
    collect(true);
    if (between) between();
  }
  if (error_) return *error_;
  ++in_flight_;
  // Notified under the lock: once the owner can see the last completion it may
  // destroy this object, so the pool thread must be done with the condition
  // variable by then.
  writer_.write_at(std::move(chunk), offset, [this](FileWriter::Completion completion) {
    std::lock_guard lock(mu_);
    completed_.push_back(std::move(completion));
    completed_cv_.notify_one();
  });
  return {};
}

Result<void> RangeWrites::drain(const Between& between) {
  while (in_flight_ > 0) {
    collect(true);
    if (between) between();
  }
  if (error_) return *error_;
  return {};
}

void RangeWrites::collect(bool wait) {
  std::deque<FileWriter::Completion> taken;
  {
    std::unique_lock lock(mu_);
    if (wait && completed_.empty()) {
      completed_cv_.wait_for(lock, kWaitSlice, [this] { return !completed_.empty(); });
    }
    taken.swap(completed_);
  }
  for (auto& completion : taken) complete(std::move(completion));
}

// Completions come back in any order (several pool threads); done advances only
// over writes that reach back to it without a gap.
void RangeWrites::complete(FileWriter::Completion completion) {
  --in_flight_;
  if (!completion.result) {
    if (!error_) error_ = completion.result.error();
    return;
  }
  if (completion.returned_chunk.capacity() > 0 && spare_.size() < kMaxInFlight) {
    spare_.push_back(std::move(completion.returned_chunk));
  }
  finished_[completion.offset] = completion.offset + completion.length;
  auto next = finished_.begin();
  while (next != finished_.end() && next->first == contiguous_end_) {
    contiguous_end_ = next->second;
    next = finished_.erase(next);
  }
  done_.store(contiguous_end_ - base_, std::memory_order_release);
}

}  // namespace sluice
