// DatagramBatch (see datagram_batch.hpp).
// Ownership: one carrier's; one thread.

#include "net/datagram_batch.hpp"

namespace sluice {

void DatagramBatch::begin(std::size_t packets, std::size_t max_size) {
  runs_.clear();
  used_ = 0;
  datagrams_ = 0;
  max_size_ = max_size;
  slots_ = packets;
  if (buffer_.size() < packets * max_size) buffer_.resize(packets * max_size);
}

std::span<std::uint8_t> DatagramBatch::next_slot() noexcept {
  if (datagrams_ >= slots_) return {};
  return {buffer_.data() + used_, max_size_};
}

// A datagram joins the last run when it is no longer than the run's segment and the
// run has not ended (a shorter datagram ends it: GSO takes only the last one short).
void DatagramBatch::commit(std::size_t size) {
  if (size == 0) return;
  const bool joins = !runs_.empty() && runs_.back().offset + runs_.back().length == used_ &&
                     size <= runs_.back().segment &&
                     runs_.back().length % runs_.back().segment == 0;
  if (joins)
    runs_.back().length += size;
  else
    runs_.push_back({used_, size, size});
  used_ += size;
  ++datagrams_;
}

void DatagramBatch::sent(std::size_t n) {
  if (runs_.empty()) return;
  Run& run = runs_.front();
  run.offset += n;
  run.length -= n;
  if (run.length == 0) runs_.erase(runs_.begin());
}

void DatagramBatch::clear() noexcept { runs_.clear(); }

std::size_t DatagramBatch::release_if_empty() noexcept {
  if (!runs_.empty() || buffer_.capacity() == 0) return 0;
  const std::size_t freed = buffer_.capacity();
  buffer_ = std::vector<std::uint8_t>();
  slots_ = 0;
  return freed;
}

}  // namespace sluice
