#include "chaos/chaos_tally.hpp"

#include <algorithm>
#include <iomanip>

namespace sluice::chaos {

void ChaosTally::add(RunRecord record) {
  std::lock_guard lock(mu_);
  const std::string key =
      record.kind + " " + record.protocol + " " + record.mode + " " + record.fault;
  ++by_case_[key][record.outcome];
  ++by_outcome_[record.kind + " " + record.outcome];
  double& longest = record.kind == "download" ? longest_download_ : longest_fetch_;
  longest = std::max(longest, record.seconds);
  if (record.wrong()) wrong_.push_back(std::move(record));
}

std::uint64_t ChaosTally::wrong() const {
  std::lock_guard lock(mu_);
  return wrong_.size();
}

void ChaosTally::print(std::ostream& out, std::uint64_t seed) const {
  std::lock_guard lock(mu_);
  out << "chaos tally (kind protocol mode fault: outcome=count)\n";
  for (const auto& [key, outcomes] : by_case_) {
    out << "  " << std::left << std::setw(34) << key;
    for (const auto& [outcome, count] : outcomes) out << " " << outcome << "=" << count;
    out << "\n";
  }
  out << "chaos totals:";
  for (const auto& [key, count] : by_outcome_) out << " [" << key << "]=" << count;
  out << "\nchaos longest: download " << std::fixed << std::setprecision(1) << longest_download_
      << " s, fetch " << longest_fetch_ << " s\n";
  for (const RunRecord& run : wrong_) {
    out << "chaos WRONG " << run.kind << " " << run.index << " seed=" << run.seed << " "
        << run.protocol << " " << run.mode << " " << run.fault << ": " << run.detail << "\n";
    for (const std::string& line : run.log) out << "    " << line << "\n";
    out << "    replay: sluice-chaos --seed " << seed << " --only " << run.kind << ":" << run.index
        << "\n";
  }
}

}  // namespace sluice::chaos
