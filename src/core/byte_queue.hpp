#pragma once
// ByteQueue: a FIFO of bytes in one contiguous block. Appends at the back, consumes
// from the front. Growth goes through reserve_for_append (memory rule 1).
// Not thread-safe: owned by one thread at a time (the owner says which).

#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>
#include <string_view>

#include "core/memory_rules.hpp"

namespace sluice {

class ByteQueue {
 public:
  ByteQueue() = default;
  ByteQueue(ByteQueue&& other) noexcept;
  ByteQueue& operator=(ByteQueue&& other) noexcept;
  ByteQueue(const ByteQueue&) = delete;
  ByteQueue& operator=(const ByteQueue&) = delete;
  ~ByteQueue() = default;

  /// Bytes waiting at the front.
  std::span<const std::byte> readable() const noexcept {
    return {block_.get() + head_, tail_ - head_};
  }
  std::size_t size() const noexcept { return tail_ - head_; }
  bool empty() const noexcept { return head_ == tail_; }
  std::size_t capacity() const noexcept { return capacity_; }

  void append(std::span<const std::byte> bytes);
  void append(std::string_view text);
  /// Room for at least `n` more bytes at the back, for a reader that writes in place
  /// (recv); call commit(k) after writing k <= n bytes.
  std::span<std::byte> prepare(std::size_t n);
  void commit(std::size_t n) noexcept;

  /// Drops `n` bytes from the front (n <= size()). A queue this drains keeps its
  /// block for the next bytes unless the block is larger than the release threshold:
  /// a long-lived queue (a connection's, a request source's) does not hold a burst's
  /// block until it is destroyed.
  void consume(std::size_t n) noexcept;
  /// The release threshold consume() applies (kDefaultReleaseThreshold unless set;
  /// SIZE_MAX keeps every block).
  void set_release_threshold(std::size_t threshold) noexcept { release_threshold_ = threshold; }
  /// Drops every byte, keeps the block for reuse.
  void clear() noexcept { head_ = tail_ = 0; }
  /// Frees the block if nothing is waiting in it; returns the bytes freed.
  std::size_t release_if_empty() noexcept;
  /// Frees the block of an empty queue when it exceeds `cap` bytes (retain cap).
  std::size_t trim_if_empty(std::size_t cap) noexcept;

 private:
  void make_room(std::size_t extra);

  std::unique_ptr<std::byte[]> block_;
  std::size_t capacity_ = 0;
  std::size_t head_ = 0;
  std::size_t tail_ = 0;
  std::size_t touched_ = 0;  // the block's prefix ever written (resident pages)
  std::size_t release_threshold_ = kDefaultReleaseThreshold;
};

inline std::span<const std::byte> as_bytes(std::string_view text) noexcept {
  return {reinterpret_cast<const std::byte*>(text.data()), text.size()};
}
inline std::string_view as_text(std::span<const std::byte> bytes) noexcept {
  return {reinterpret_cast<const char*>(bytes.data()), bytes.size()};
}

}  // namespace sluice
