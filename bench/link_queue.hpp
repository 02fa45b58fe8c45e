#pragma once
// The two pieces every delay link direction is made of: a ByteFifo that holds the
// bytes read but not yet due, and a LinkClock that says when bytes read now are due
// at the far end (one-way delay, plus serialisation at the link's rate when it has
// one). Both belong to one link's thread: no locking.

#include <sys/uio.h>

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <deque>
#include <memory>
#include <span>
#include <vector>

namespace sluice::bench {

using LinkTime = std::chrono::steady_clock::time_point;

/// What a delay link models: a one-way delay in each direction and, optionally, a
/// rate cap per direction. A value; any thread.
struct LinkShape {
  std::chrono::nanoseconds one_way{0};  ///< half the round-trip time
  std::uint64_t bits_per_second = 0;    ///< per direction; 0: unlimited
};

/// Bytes in arrival order, stored in fixed blocks that are recycled, so a steady
/// stream allocates nothing after its first round trip and a large backlog costs
/// its size plus at most one block. A span returned by tail_space() stays valid (its
/// block never moves) until consume() passes it. Owner's thread only.
class ByteFifo {
 public:
  static constexpr std::size_t kBlockBytes = 256 * 1024;

  /// Contiguous writable space at the tail, at least `min_bytes` (at most
  /// kBlockBytes) long; nothing is queued until commit().
  std::span<char> tail_space(std::size_t min_bytes);
  /// Appends the first `n` bytes of the last tail_space().
  void commit(std::size_t n);
  /// Fills `into` with spans covering at most the first `limit` bytes; returns how
  /// many entries were used.
  std::size_t front(std::size_t limit, std::span<iovec> into) const;
  /// Drops the first `n` bytes (n <= size()).
  void consume(std::size_t n);
  std::size_t size() const noexcept { return size_; }

 private:
  struct Block {
    std::unique_ptr<char[]> data;
    std::size_t begin = 0;  // first byte still queued
    std::size_t end = 0;    // one past the last byte written
  };
  std::unique_ptr<char[]> take_spare();

  std::deque<Block> blocks_;
  std::vector<std::unique_ptr<char[]>> spare_;  // emptied blocks kept for reuse
  std::size_t size_ = 0;
};

/// When bytes that leave now reach the far end of one direction of the link. With a
/// rate, bytes queue behind each other for serialisation (a simple clock of when the
/// link is next free) and then travel one_way; without, they all travel one_way from
/// the moment they were read. Times returned never decrease, so a queue of due times
/// filled in read order stays sorted. Owner's thread only.
class LinkClock {
 public:
  explicit LinkClock(LinkShape shape);

  /// The time the last of `bytes` bytes read at `now` arrives at the far end.
  LinkTime arrival(LinkTime now, std::size_t bytes);
  bool rate_limited() const noexcept { return ns_per_byte_ > 0; }

 private:
  std::chrono::nanoseconds one_way_;
  double ns_per_byte_ = 0;  // serialisation time per byte; 0: unlimited
  LinkTime free_at_{};      // when the link finishes sending what it was given
  LinkTime last_{};         // the last arrival returned (arrivals never go back)
};

}  // namespace sluice::bench
