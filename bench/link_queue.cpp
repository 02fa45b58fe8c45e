// ByteFifo and LinkClock: the storage and the timing of one delay-link direction.

#include "bench/link_queue.hpp"

#include <algorithm>

namespace sluice::bench {
namespace {

// A few emptied blocks are kept: a steady stream frees one at the head as it fills
// one at the tail, so more would only hold memory after a burst.
constexpr std::size_t kMaxSpareBlocks = 8;

}  // namespace

std::unique_ptr<char[]> ByteFifo::take_spare() {
  if (spare_.empty()) return std::make_unique_for_overwrite<char[]>(kBlockBytes);
  std::unique_ptr<char[]> block = std::move(spare_.back());
  spare_.pop_back();
  return block;
}

std::span<char> ByteFifo::tail_space(std::size_t min_bytes) {
  min_bytes = std::min(min_bytes, kBlockBytes);
  if (blocks_.empty() || kBlockBytes - blocks_.back().end < min_bytes) {
    blocks_.push_back(Block{take_spare(), 0, 0});
  }
  Block& tail = blocks_.back();
  return {tail.data.get() + tail.end, kBlockBytes - tail.end};
}

void ByteFifo::commit(std::size_t n) {
  blocks_.back().end += n;
  size_ += n;
}

std::size_t ByteFifo::front(std::size_t limit, std::span<iovec> into) const {
  std::size_t used = 0;
  for (const Block& block : blocks_) {
    if (limit == 0 || used == into.size()) break;
    const std::size_t length = std::min(limit, block.end - block.begin);
    if (length == 0) continue;
    into[used++] = iovec{block.data.get() + block.begin, length};
    limit -= length;
  }
  return used;
}

void ByteFifo::consume(std::size_t n) {
  size_ -= n;
  while (n > 0) {
    Block& head = blocks_.front();
    const std::size_t taken = std::min(n, head.end - head.begin);
    head.begin += taken;
    n -= taken;
    if (head.begin != head.end) continue;
    if (blocks_.size() == 1) {
      head.begin = head.end = 0;  // the only block, now empty: refill it from its start
    } else {
      if (spare_.size() < kMaxSpareBlocks) spare_.push_back(std::move(head.data));
      blocks_.pop_front();
    }
  }
}

LinkClock::LinkClock(LinkShape shape) : one_way_(shape.one_way) {
  if (shape.bits_per_second > 0) {
    ns_per_byte_ = 8e9 / static_cast<double>(shape.bits_per_second);
  }
}

LinkTime LinkClock::arrival(LinkTime now, std::size_t bytes) {
  LinkTime sent = now;
  if (ns_per_byte_ > 0) {
    const auto serialisation = std::chrono::nanoseconds(
        static_cast<std::int64_t>(ns_per_byte_ * static_cast<double>(bytes)));
    free_at_ = std::max(free_at_, now) + serialisation;
    sent = free_at_;
  }
  // A clock read on one core may be a hair behind one read earlier: never go back.
  last_ = std::max(last_, sent + one_way_);
  return last_;
}

}  // namespace sluice::bench
