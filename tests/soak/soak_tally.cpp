// Outcome counting for sluice-soak. Any thread; guarded by mu_.

#include "soak/soak_tally.hpp"

#include <iostream>

namespace sluice::soak {
namespace {

constexpr std::uint64_t kProblemsPrinted = 50;

void add(Totals& totals, Outcome outcome) {
  ++totals.requests;
  switch (outcome) {
    case Outcome::ok: ++totals.ok; break;
    case Outcome::expected_error: ++totals.expected_errors; break;
    case Outcome::cancelled: ++totals.cancelled; break;
    case Outcome::unexpected: ++totals.unexpected; break;
  }
}

}  // namespace

void Tally::record(std::string_view kind, Outcome outcome, std::string_view note) {
  std::lock_guard lock(mu_);
  auto found = kinds_.find(kind);
  if (found == kinds_.end()) found = kinds_.emplace(std::string(kind), KindCounts{}).first;
  add(found->second.totals, outcome);
  add(totals_, outcome);
  if (outcome == Outcome::expected_error && !note.empty()) {
    auto category = found->second.categories.find(note);
    if (category == found->second.categories.end()) {
      category = found->second.categories.emplace(std::string(note), 0).first;
    }
    ++category->second;
  }
  if (outcome == Outcome::unexpected && problems_printed_++ < kProblemsPrinted) {
    std::cerr << "soak UNEXPECTED " << kind << ": " << note << std::endl;
  }
}

void Tally::record_problem(std::string_view what) {
  std::lock_guard lock(mu_);
  ++totals_.unexpected;
  if (problems_printed_++ < kProblemsPrinted) {
    std::cerr << "soak UNEXPECTED " << what << std::endl;
  }
}

Totals Tally::totals() const {
  std::lock_guard lock(mu_);
  return totals_;
}

void Tally::print_by_kind(std::ostream& out) const {
  std::lock_guard lock(mu_);
  for (const auto& [kind, counts] : kinds_) {
    out << "soak_kind " << kind << " requests=" << counts.totals.requests
        << " ok=" << counts.totals.ok << " expected_error=" << counts.totals.expected_errors;
    if (!counts.categories.empty()) {
      out << " (";
      const char* separator = "";
      for (const auto& [category, n] : counts.categories) {
        out << separator << category << '=' << n;
        separator = " ";
      }
      out << ')';
    }
    out << " cancelled=" << counts.totals.cancelled << " unexpected=" << counts.totals.unexpected
        << '\n';
  }
}

}  // namespace sluice::soak
