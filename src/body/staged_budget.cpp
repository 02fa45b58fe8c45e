#include "body/staged_budget.hpp"

#include <utility>

namespace sluice {

StagedBudget::StagedBudget(std::size_t limit, Notify under_budget)
    : limit_(limit), under_budget_(std::move(under_budget)) {}

void StagedBudget::remove(std::size_t n) {
  const std::size_t after = staged_.fetch_sub(n) - n;
  if (!limited() || after >= limit_) return;
  if (waiting_.load() && waiting_.exchange(false) && under_budget_) under_budget_();
}

bool StagedBudget::exhausted() {
  if (!limited() || staged_.load() < limit_) return false;
  const bool was_waiting = waiting_.exchange(true);
  if (staged_.load() >= limit_) {
    if (!was_waiting) waits_.fetch_add(1, std::memory_order_relaxed);
    return true;
  }
  // A reader took bytes between the two looks and may have missed the flag: whoever
  // clears it resumes the streams held so far.
  if (waiting_.exchange(false) && under_budget_) under_budget_();
  return false;
}

}  // namespace sluice
