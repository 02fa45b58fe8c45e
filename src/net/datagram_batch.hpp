#pragma once
// DatagramBatch: the datagrams a codec wrote in one go, kept as runs of equal size
// (the last of a run may be shorter) so that each run leaves in one system call (UDP
// GSO or sendmmsg). The codec fills slots; the carrier (DatagramDriver over a socket,
// or a test's simulated link) takes the runs and says how much of them went out.
// Ownership: one carrier's, lent to its codec for one write; one thread.

#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

namespace sluice {

class DatagramBatch {
 public:
  /// Consecutive datagrams of `segment` bytes (the last may be shorter).
  struct Run {
    std::size_t offset = 0;
    std::size_t length = 0;
    std::size_t segment = 0;
  };

  /// Room for `packets` datagrams of up to `max_size` bytes each. Only on an empty
  /// batch (what the last write left must go out first).
  void begin(std::size_t packets, std::size_t max_size);
  /// Where the next datagram is written (max_size bytes); empty once the batch is full.
  std::span<std::uint8_t> next_slot() noexcept;
  /// The datagram just written at next_slot() has `size` bytes (0: none was).
  void commit(std::size_t size);
  std::size_t datagrams() const noexcept { return datagrams_; }

  /// Runs still to send, oldest first.
  const std::vector<Run>& runs() const noexcept { return runs_; }
  std::span<const std::uint8_t> bytes_of(const Run& run) const noexcept {
    return {buffer_.data() + run.offset, run.length};
  }
  /// The carrier sent `n` bytes of the first run (a multiple of its segment, or all).
  void sent(std::size_t n);
  /// Nothing left to send.
  bool empty() const noexcept { return runs_.empty(); }
  /// Drops what was not sent (a closed carrier).
  void clear() noexcept;

  /// The sweep: frees the buffer when nothing waits in it; returns the bytes freed.
  std::size_t release_if_empty() noexcept;
  std::size_t capacity() const noexcept { return buffer_.capacity(); }

 private:
  std::vector<std::uint8_t> buffer_;
  std::vector<Run> runs_;
  std::size_t used_ = 0;       // bytes written since begin()
  std::size_t max_size_ = 0;   // per datagram, since begin()
  std::size_t slots_ = 0;      // datagrams that fit, since begin()
  std::size_t datagrams_ = 0;  // written since begin()
};

}  // namespace sluice
