// LowSpeedCheck (see low_speed_check.hpp).
// Thread-safety: HTTP thread only, like its Transfer.

#include "client/fetch/low_speed_check.hpp"

namespace sluice {

LowSpeedCheck::LowSpeedCheck(LowSpeedLimit limit, TimePoint start) : limit_(limit) {
  restart(start, 0);
}

void LowSpeedCheck::restart(TimePoint now, std::uint64_t moved) {
  samples_[0] = Sample{now, moved};
  count_ = 1;
  next_ = 1;
  // Nothing has moved since `now` yet: the time to speed up runs from here, as curl's
  // does from the transfer's start.
  slow_since_ = now;
}

const LowSpeedCheck::Sample& LowSpeedCheck::oldest() const noexcept {
  return samples_[count_ < kWindow ? 0 : next_];
}

bool LowSpeedCheck::too_slow(TimePoint now, std::uint64_t moved, bool held) {
  if (held) {
    restart(now, moved);
    return false;
  }
  if (now <= samples_[(next_ + kWindow - 1) % kWindow].at) return false;  // no time has passed
  samples_[next_] = Sample{now, moved};
  next_ = (next_ + 1) % kWindow;
  if (count_ < kWindow) ++count_;
  const Sample& first = oldest();
  const std::chrono::duration<double> span = now - first.at;
  last_rate_ = static_cast<double>(moved - first.moved) / span.count();
  if (last_rate_ >= static_cast<double>(limit_.bytes_per_second)) {
    slow_since_.reset();
    return false;
  }
  if (!slow_since_) slow_since_ = now;
  return now - *slow_since_ >= limit_.time;
}

}  // namespace sluice
