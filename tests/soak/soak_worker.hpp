#pragma once
// Worker: one soak thread. It runs scenarios picked at random (by weight) until told
// to stop, each ending in one recorded Outcome. run() on the worker's own thread;
// busy() from the main thread (atomics).

#include <atomic>
#include <cstdint>
#include <string>

#include "soak/soak_scenarios.hpp"

namespace sluice::soak {

class Worker {
 public:
  Worker(const SoakShared& shared, int index, std::uint64_t seed);
  void run(const std::atomic<bool>& stop);

  struct Busy {
    const char* scenario = nullptr;  ///< nullptr between scenarios
    double seconds = 0;              ///< how long it has been running
  };
  Busy busy() const;
  int index() const { return index_; }

 private:
  const Scenario& pick();

  const SoakShared& shared_;
  int index_;
  Rng rng_;
  std::atomic<const char*> scenario_{nullptr};
  std::atomic<std::int64_t> started_ms_{0};
};

}  // namespace sluice::soak
