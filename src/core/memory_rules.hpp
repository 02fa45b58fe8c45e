#pragma once
// The shared memory rules (docs/architecture.md), one implementation each. Pure functions:
// any thread.

#include <cstddef>

namespace sluice {

/// Requests of this size or more get spare room when growth would fit them exactly.
inline constexpr std::size_t kAppendRoomThreshold = std::size_t{1} << 20;  // 1 MiB
/// The spare room: enough for a CRLF, a chunk trailer or a frame header.
inline constexpr std::size_t kAppendRoom = 4096;
/// Copies above this many bytes are freed by the thread that finished with them.
inline constexpr std::size_t kDefaultReleaseThreshold = 512 * 1024;

/// Rule 1, append growth: the capacity a byte queue of `capacity` should grow to so
/// that it holds `needed` bytes. Ordinary growth doubles; when doubling would not
/// be enough (needed >= 2 x capacity) the block is sized to fit, and a fit of 1 MiB
/// or more gets kAppendRoom bytes more, so a short append behind a large payload
/// does not double the block and copy the payload again.
std::size_t reserve_for_append(std::size_t capacity, std::size_t needed) noexcept;

/// Rule 2, the release rule: whether a copy of `capacity` bytes is freed by the
/// thread that finished with it instead of being handed back for reuse.
/// `threshold` is the Client option (kDefaultReleaseThreshold by default; 0 releases
/// every copy, SIZE_MAX none).
constexpr bool releases_off_owner(std::size_t capacity,
                                  std::size_t threshold = kDefaultReleaseThreshold) noexcept {
  return capacity > threshold;
}

/// Rule 2's other half, called by the thread that just freed a released copy of
/// `bytes`. glibc serves the first large block with mmap, and freeing it raises its
/// mmap threshold past that size: from then on such blocks come from the heap, and a
/// freed one stays resident until something reuses it (an upload burst kept some
/// 50 MiB of freed bodies so). Every kTrimAfterReleased bytes released on a thread,
/// the heap's free pages go back to the kernel (malloc_trim), as the sweep does.
void return_released_memory(std::size_t bytes) noexcept;
inline constexpr std::size_t kTrimAfterReleased = 4u << 20;  // 4 MiB

}  // namespace sluice
