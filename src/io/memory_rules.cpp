#include "io/memory_rules.hpp"

namespace sluice {

std::size_t reserve_for_append(std::size_t capacity, std::size_t needed) noexcept {
  if (needed <= capacity) return capacity;
  const std::size_t doubled = capacity * 2;
  if (needed < doubled) return doubled;
  // Doubling would not hold it: fit exactly, plus room when the fit is large.
  return needed >= kAppendRoomThreshold ? needed + kAppendRoom : needed;
}

}  // namespace sluice
