#pragma once
// RangeSlot: one range of a running download, shared by the thread that fetches it
// and the supervisor on the calling thread, which reports progress, saves the control
// file and, when another range finishes early, takes the second half of this one's
// rest for a new range (work stealing, as aria2c does).
//
// Ownership: the fetching thread is the only writer of `done` and `received` and
// reserves every write before making it; the supervisor is the only thread that cuts
// the end. Reserving and cutting take the slot's lock, so a cut never falls inside a
// write already under way: the new end is at least the end of the last reservation.
// Everything else reads the atomics from any thread.

#include <atomic>
#include <cstdint>
#include <mutex>
#include <optional>

#include "download/download_ranges.hpp"

namespace sluice {

class RangeSlot {
 public:
  RangeSlot(unsigned position, const RangeSpec& spec);
  RangeSlot(const RangeSlot&) = delete;
  RangeSlot& operator=(const RangeSlot&) = delete;

  /// A consistent view: done never passes end, as end never falls below a reservation.
  RangeSpec spec() const;
  /// The range's end now (nullopt: unknown, the body's end). A cut only lowers it.
  std::optional<std::uint64_t> end() const;

  /// Fetching thread: claims bytes [offset, offset + want) for a write, clipped to the
  /// end; the count it may write (0 once the range is complete).
  std::uint64_t reserve(std::uint64_t offset, std::uint64_t want);
  /// Supervisor: when at least 2 * min_size bytes lie between the last reservation and
  /// the end, moves the end to the middle of them and returns the cut-off part as a new
  /// range; otherwise nothing. Ranges of unknown end are never cut.
  std::optional<RangeSpec> cut_second_half(std::uint64_t min_size);
  /// Bytes between the last reservation and the end (0 for an unknown end): what a
  /// cut could share out.
  std::uint64_t unreserved() const;

  const unsigned index;
  const std::uint64_t start;
  std::atomic<std::uint64_t> done;         ///< bytes from start written to the file
  std::atomic<std::uint64_t> received{0};  ///< body bytes this run received
  std::atomic<bool> active{false};         ///< a request or body is in flight

 private:
  static constexpr std::uint64_t kNoEnd = ~std::uint64_t{0};

  mutable std::mutex mu_;
  std::atomic<std::uint64_t> end_;  ///< kNoEnd: unknown; written under mu_
  std::uint64_t reserved_;          ///< guarded by mu_: end of the last reservation
};

}  // namespace sluice
