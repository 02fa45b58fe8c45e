#pragma once
// ChaosTally: every run's outcome, counted by kind, protocol, mode and fault, and the
// wrong runs kept whole for the report (with the seed that replays each).
// Any thread; guarded by mu_.

#include <cstdint>
#include <map>
#include <mutex>
#include <ostream>
#include <string>
#include <vector>

#include "chaos/chaos_run.hpp"

namespace sluice::chaos {

class ChaosTally {
 public:
  void add(RunRecord record);
  std::uint64_t wrong() const;
  /// One line per (kind, protocol, mode, fault) with its outcomes, then the totals
  /// per kind and outcome, then each wrong run with its replay command.
  void print(std::ostream& out, std::uint64_t seed) const;

 private:
  mutable std::mutex mu_;
  std::map<std::string, std::map<std::string, std::uint64_t>> by_case_;
  std::map<std::string, std::uint64_t> by_outcome_;
  std::vector<RunRecord> wrong_;
  double longest_download_ = 0;
  double longest_fetch_ = 0;
};

}  // namespace sluice::chaos
