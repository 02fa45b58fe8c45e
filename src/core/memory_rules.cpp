#include "core/memory_rules.hpp"

#ifdef __GLIBC__
#include <malloc.h>
#endif

namespace sluice {

void return_released_memory(std::size_t bytes) noexcept {
#ifdef __GLIBC__
  // Per thread, so that no lock is taken: the HTTP thread and the file pool each
  // count what they released.
  thread_local std::size_t released_since_trim = 0;
  released_since_trim += bytes;
  if (released_since_trim < kTrimAfterReleased) return;
  released_since_trim = 0;
  malloc_trim(0);
#else
  (void)bytes;
#endif
}

std::size_t reserve_for_append(std::size_t capacity, std::size_t needed) noexcept {
  if (needed <= capacity) return capacity;
  const std::size_t doubled = capacity * 2;
  if (needed < doubled) return doubled;
  // Doubling would not hold it: fit exactly, plus room when the fit is large.
  return needed >= kAppendRoomThreshold ? needed + kAppendRoom : needed;
}

}  // namespace sluice
