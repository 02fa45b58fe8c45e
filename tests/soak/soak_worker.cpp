// The soak's worker loop.

#include "soak/soak_worker.hpp"

#include <chrono>
#include <vector>

namespace sluice::soak {
namespace {

std::int64_t now_ms() {
  return std::chrono::duration_cast<std::chrono::milliseconds>(
             std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

// Every scenario, real servers and fault servers together, with its weight.
const std::vector<const Scenario*>& all_scenarios() {
  static const std::vector<const Scenario*> all = [] {
    std::vector<const Scenario*> list;
    for (const Scenario& s : real_server_scenarios()) list.push_back(&s);
    for (const Scenario& s : fault_server_scenarios()) list.push_back(&s);
    return list;
  }();
  return all;
}

}  // namespace

Worker::Worker(const SoakShared& shared, int index, std::uint64_t seed)
    : shared_(shared), index_(index), rng_(seed) {}

const Scenario& Worker::pick() {
  int total = 0;
  for (const Scenario* s : all_scenarios()) total += s->weight;
  int pick = std::uniform_int_distribution<int>(0, total - 1)(rng_);
  for (const Scenario* s : all_scenarios()) {
    if (pick < s->weight) return *s;
    pick -= s->weight;
  }
  return *all_scenarios().front();
}

void Worker::run(const std::atomic<bool>& stop) {
  for (std::uint64_t serial = 0; !stop.load(); ++serial) {
    const Scenario& scenario = pick();
    started_ms_ = now_ms();
    scenario_ = scenario.name;
    Turn turn{shared_, rng_, index_, serial, {}};
    scenario.run(turn);
    scenario_ = nullptr;
  }
}

Worker::Busy Worker::busy() const {
  Busy busy;
  busy.scenario = scenario_.load();
  if (busy.scenario != nullptr)
    busy.seconds = static_cast<double>(now_ms() - started_ms_.load()) / 1000.0;
  return busy;
}

}  // namespace sluice::soak
