#include "io/byte_queue.hpp"

#include <cstring>
#include <utility>

#include "io/memory_rules.hpp"

namespace sluice {

ByteQueue::ByteQueue(ByteQueue&& other) noexcept
    : block_(std::move(other.block_)),
      capacity_(std::exchange(other.capacity_, 0)),
      head_(std::exchange(other.head_, 0)),
      tail_(std::exchange(other.tail_, 0)) {}

ByteQueue& ByteQueue::operator=(ByteQueue&& other) noexcept {
  if (this != &other) {
    block_ = std::move(other.block_);
    capacity_ = std::exchange(other.capacity_, 0);
    head_ = std::exchange(other.head_, 0);
    tail_ = std::exchange(other.tail_, 0);
  }
  return *this;
}

void ByteQueue::make_room(std::size_t extra) {
  const std::size_t live = size();
  if (capacity_ - tail_ >= extra) return;
  // Sliding the live bytes to the front is cheaper than growing when the consumed
  // prefix alone makes room; a queue that is read as fast as it is written never grows.
  if (capacity_ - live >= extra && head_ >= live) {
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
  }
  head_ = 0;
  tail_ = live;
}

void ByteQueue::append(std::span<const std::byte> bytes) {
  if (bytes.empty()) return;
  make_room(bytes.size());
  std::memcpy(block_.get() + tail_, bytes.data(), bytes.size());
  tail_ += bytes.size();
}

void ByteQueue::append(std::string_view text) { append(as_bytes(text)); }

std::span<std::byte> ByteQueue::prepare(std::size_t n) {
  make_room(n);
  return {block_.get() + tail_, capacity_ - tail_};
}

void ByteQueue::commit(std::size_t n) noexcept { tail_ += n; }

void ByteQueue::consume(std::size_t n) noexcept {
  head_ += n;
  if (head_ == tail_) head_ = tail_ = 0;
}

std::size_t ByteQueue::release_if_empty() noexcept {
  if (!empty() || !block_) return 0;
  const std::size_t freed = capacity_;
  block_.reset();
  capacity_ = head_ = tail_ = 0;
  return freed;
}

std::size_t ByteQueue::trim_if_empty(std::size_t cap) noexcept {
  return capacity_ > cap ? release_if_empty() : 0;
}

}  // namespace sluice
