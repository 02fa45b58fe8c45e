#pragma once
// StagedSegments: a response body's staged bytes as a FIFO of separately allocated
// blocks whose bytes never move once written. That is what lets a reader borrow the
// front bytes in place (BodyReader::next) while the HTTP thread appends behind them:
// an append writes only past the tail's end or into a new block, and a block is freed
// or reused only once every byte in it was consumed. The HTTP thread may also receive
// straight into the tail's free room (prepare, then commit) without the lock held:
// while a prepare is open, consuming never moves or frees the tail.
// Not thread-safe: StagingBuffer guards it with its mutex.

#include <cstddef>
#include <memory>
#include <span>
#include <vector>

namespace sluice {

class StagedSegments {
 public:
  /// `segment_size`: the size of a block for appends; a larger append that finds no
  /// room gets a block of its own size.
  explicit StagedSegments(std::size_t segment_size) noexcept;
  StagedSegments(const StagedSegments&) = delete;
  StagedSegments& operator=(const StagedSegments&) = delete;

  /// Blocks made from now on are of this size (the allowance grew or shrank); drained
  /// blocks of another size are freed rather than kept.
  void set_segment_size(std::size_t segment_size) noexcept {
    segment_size_ = segment_size > 0 ? segment_size : 1;
  }
  std::size_t segment_size() const noexcept { return segment_size_; }
  /// Drained blocks are kept for reuse while all blocks together stay within `bytes`
  /// (one spare is kept in any case); release_unused() frees them all.
  void set_spare_limit(std::size_t bytes) noexcept { spare_limit_ = bytes; }
  /// Bytes staged and not yet consumed.
  std::size_t size() const noexcept { return size_; }
  bool empty() const noexcept { return size_ == 0; }
  /// Bytes allocated, the spare blocks included.
  std::size_t capacity() const noexcept { return capacity_; }
  /// The whole body will be `total` bytes: a block for it need be no larger (an
  /// append still gets room for what it brings, a prepare its floor). Many short
  /// bodies in flight then hold their size each, not a block of the segment size.
  void expect_total(std::size_t total) noexcept { expected_total_ = total; }

  /// Copies `bytes` in behind what is staged (into the tail's free room first).
  /// Ends an open prepare.
  void append(std::span<const std::byte> bytes);
  /// Free room behind the staged bytes, at most `max` (at least `min(max, floor)`
  /// unless `max` is smaller: a tail with less opens a new block), to be written
  /// in place and then committed. Stays open, and the tail stays put, until
  /// end_prepare(), append(), clear() or release_unused().
  std::span<std::byte> prepare(std::size_t max, std::size_t floor);
  /// Stages the next `n` prepared bytes (written since prepare()).
  void commit(std::size_t n) noexcept;
  /// Stages `bytes` if they lie in the open prepared room (written there in place,
  /// maybe not at its start: then they are slid to it) and returns true; returns
  /// false, changing nothing, for any other bytes.
  bool commit_in_place(std::span<const std::byte> bytes) noexcept;
  void end_prepare() noexcept;
  /// The first contiguous run of staged bytes, at most `max` long (a run ends where
  /// its block does). Stays valid until those bytes are consumed.
  std::span<const std::byte> front(std::size_t max) const noexcept;
  /// Copies the first staged bytes into `into` (across blocks); consumes nothing.
  /// Returns how many it copied.
  std::size_t copy_front(std::span<std::byte> into) const noexcept;
  /// Drops `n` staged bytes from the front (n <= size()). A drained block of the
  /// segment size is reused (as the tail, or as a spare); a larger one is freed.
  void consume(std::size_t n) noexcept;
  /// Drops every staged byte (the blocks stay, as for consume); ends an open prepare.
  void clear() noexcept;
  /// Frees the spare blocks, and every block when nothing is staged; returns the
  /// bytes freed. Ends an open prepare.
  std::size_t release_unused() noexcept;

 private:
  struct Segment {
    std::unique_ptr<std::byte[]> block;
    std::size_t capacity = 0;
    std::size_t begin = 0;  // first staged byte
    std::size_t end = 0;    // one past the last staged byte
  };
  Segment new_segment(std::size_t at_least);
  void push_segment(std::size_t at_least);
  void retire_front() noexcept;
  /// An empty tail left in place for a prepare starts over at its block's start.
  void rewind_empty_tail() noexcept;

  /// Segments holding staged bytes (or the empty tail), from segments_[head_] on.
  std::size_t live() const noexcept { return segments_.size() - head_; }
  void drop_all_segments() noexcept;

  std::size_t segment_size_;
  std::size_t expected_total_ = 0;  // 0: unknown
  // A FIFO: consumed from head_, appended at the back; the tail is the last, and
  // only the tail may be empty. A vector with a moving head rather than a deque,
  // which allocates twice even when empty (a buffer per response, many small ones).
  std::vector<Segment> segments_;
  std::size_t head_ = 0;  // segments_[0, head_) are drained records awaiting compaction
  // Drained blocks kept for the next appends: one at least, more while all blocks
  // together stay within spare_limit_ (a prompt reader's allowance).
  std::vector<Segment> spares_;
  std::size_t spare_limit_ = 0;
  std::size_t size_ = 0;
  std::size_t capacity_ = 0;
  bool preparing_ = false;        // a prepare is open: the tail must not move
  std::size_t prepared_end_ = 0;  // while preparing_: where the room ends in the tail
};

}  // namespace sluice
