#include "core/byte_queue.hpp"

#include <algorithm>
#include <cstring>
#include <utility>

#include "core/memory_rules.hpp"

namespace sluice {

ByteQueue::ByteQueue(ByteQueue&& other) noexcept
    : block_(std::move(other.block_)),
      capacity_(std::exchange(other.capacity_, 0)),
      head_(std::exchange(other.head_, 0)),
      tail_(std::exchange(other.tail_, 0)),
      touched_(std::exchange(other.touched_, 0)),
      release_threshold_(other.release_threshold_) {}

ByteQueue& ByteQueue::operator=(ByteQueue&& other) noexcept {
  if (this != &other) {
    block_ = std::move(other.block_);
    capacity_ = std::exchange(other.capacity_, 0);
    head_ = std::exchange(other.head_, 0);
    tail_ = std::exchange(other.tail_, 0);
    touched_ = std::exchange(other.touched_, 0);
    release_threshold_ = other.release_threshold_;
  }
  return *this;
}

void ByteQueue::make_room(std::size_t extra) {
  const std::size_t live = size();
  // Sliding the live bytes to the front copies no more than was consumed before
  // them. It beats growing when the consumed prefix alone makes room, and it beats
  // appending past what the block ever held: untouched pages cost nothing until
  // written, so a queue whose reader lags by a little stays as resident as its
  // longest fill, not as its whole block. A queue read as fast as it is written
  // neither grows nor spreads.
  const bool can_slide = head_ > 0 && head_ >= live && capacity_ - live >= extra;
  if (capacity_ - tail_ >= extra && (tail_ + extra <= touched_ || !can_slide)) return;
  if (can_slide) {
    std::memmove(block_.get(), block_.get() + head_, live);
    head_ = 0;
    tail_ = live;
    return;
  }
  const std::size_t needed = live + extra;
  const std::size_t new_capacity = reserve_for_append(capacity_, needed);
  if (new_capacity == capacity_) {  // fits after compaction
    std::memmove(block_.get(), block_.get() + head_, live);
  } else {
    auto grown = std::make_unique_for_overwrite<std::byte[]>(new_capacity);
    if (live != 0) std::memcpy(grown.get(), block_.get() + head_, live);
    block_ = std::move(grown);
    capacity_ = new_capacity;
    touched_ = live;
  }
  head_ = 0;
  tail_ = live;
}

void ByteQueue::append(std::span<const std::byte> bytes) {
  if (bytes.empty()) return;
  make_room(bytes.size());
  std::memcpy(block_.get() + tail_, bytes.data(), bytes.size());
  tail_ += bytes.size();
  touched_ = std::max(touched_, tail_);
}

void ByteQueue::append(std::string_view text) { append(as_bytes(text)); }

std::span<std::byte> ByteQueue::prepare(std::size_t n) {
  make_room(n);
  return {block_.get() + tail_, capacity_ - tail_};
}

void ByteQueue::commit(std::size_t n) noexcept {
  tail_ += n;
  touched_ = std::max(touched_, tail_);
}

void ByteQueue::consume(std::size_t n) noexcept {
  head_ += n;
  if (head_ != tail_) return;
  head_ = tail_ = 0;
  if (releases_off_owner(capacity_, release_threshold_)) {
    block_.reset();
    return_released_memory(capacity_);
    capacity_ = touched_ = 0;
  }
}

std::size_t ByteQueue::release_if_empty() noexcept {
  if (!empty() || !block_) return 0;
  const std::size_t freed = capacity_;
  block_.reset();
  capacity_ = head_ = tail_ = touched_ = 0;
  return freed;
}

std::size_t ByteQueue::trim_if_empty(std::size_t cap) noexcept {
  return capacity_ > cap ? release_if_empty() : 0;
}

}  // namespace sluice
