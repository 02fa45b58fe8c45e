#include "download/range_slot.hpp"

#include <algorithm>

namespace sluice {

RangeSlot::RangeSlot(unsigned position, const RangeSpec& spec)
    : index(position),
      start(spec.start),
      done(spec.done),
      end_(spec.end.value_or(kNoEnd)),
      reserved_(spec.start + spec.done) {}

RangeSpec RangeSlot::spec() const {
  // done first: it only grows and never passes a reservation, and the end never falls
  // below one, so the pair read in this order always has done <= end - start.
  const std::uint64_t written = done.load(std::memory_order_acquire);
  return RangeSpec{start, end(), written};
}

std::optional<std::uint64_t> RangeSlot::end() const {
  const std::uint64_t value = end_.load(std::memory_order_acquire);
  if (value == kNoEnd) return std::nullopt;
  return value;
}

std::uint64_t RangeSlot::reserve(std::uint64_t offset, std::uint64_t want) {
  std::lock_guard lock(mu_);
  const std::uint64_t end = end_.load(std::memory_order_relaxed);
  const std::uint64_t allowed = offset >= end ? 0 : std::min(want, end - offset);
  reserved_ = std::max(reserved_, offset + allowed);
  return allowed;
}

std::uint64_t RangeSlot::unreserved() const {
  std::lock_guard lock(mu_);
  const std::uint64_t end = end_.load(std::memory_order_relaxed);
  return end == kNoEnd || reserved_ >= end ? 0 : end - reserved_;
}

std::optional<RangeSpec> RangeSlot::cut_second_half(std::uint64_t min_size) {
  std::lock_guard lock(mu_);
  const std::uint64_t end = end_.load(std::memory_order_relaxed);
  if (end == kNoEnd || reserved_ >= end) return std::nullopt;
  const auto middle = split_point(reserved_, end - reserved_, min_size);
  if (!middle) return std::nullopt;
  end_.store(*middle, std::memory_order_release);
  return RangeSpec{*middle, end, 0};
}

}  // namespace sluice
