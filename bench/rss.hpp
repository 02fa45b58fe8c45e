#pragma once
// The process's resident memory as the kernel reports it in /proc/self/status.
// Any thread; reads a file, holds no state.

#include <cstdint>

#include "sluice/error.hpp"

namespace sluice::bench {

struct MemoryStatus {
  std::uint64_t rss_bytes = 0;  ///< VmRSS: resident now
  std::uint64_t hwm_bytes = 0;  ///< VmHWM: the highest VmRSS so far
};

/// Fails (category io) when /proc/self/status is unreadable or lacks either line,
/// as on a kernel without procfs.
Result<MemoryStatus> read_memory_status();

inline double to_mib(std::uint64_t bytes) { return static_cast<double>(bytes) / (1024.0 * 1024.0); }

}  // namespace sluice::bench
