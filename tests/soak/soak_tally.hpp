#pragma once
// Tally: every request's outcome, counted by scenario kind. Workers record, the main
// thread reads. Any thread; guarded by mu_.

#include <cstdint>
#include <map>
#include <mutex>
#include <ostream>
#include <string>
#include <string_view>

namespace sluice::soak {

enum class Outcome {
  ok,              ///< a good transfer matched (size, hash) or a fault was survived
  expected_error,  ///< a fault ended in the error it must (never a short success)
  cancelled,       ///< the worker cancelled or dropped it on purpose
  unexpected,      ///< anything else: a failed good transfer, a fault that "succeeded"
};

struct Totals {
  std::uint64_t requests = 0;
  std::uint64_t ok = 0;
  std::uint64_t expected_errors = 0;
  std::uint64_t cancelled = 0;
  std::uint64_t unexpected = 0;
};

class Tally {
 public:
  /// `note`: the error category for expected errors; what went wrong for unexpected
  /// outcomes (printed at once, the first 50 times, so a failing run says why).
  void record(std::string_view kind, Outcome outcome, std::string_view note = {});
  /// A problem outside any one request (a server thread's failure, a stuck worker).
  void record_problem(std::string_view what);
  Totals totals() const;
  /// One line per kind: "soak_kind h1_reset ok=0 expected_error=12 (protocol=12) ...".
  void print_by_kind(std::ostream& out) const;

 private:
  struct KindCounts {
    Totals totals;
    std::map<std::string, std::uint64_t, std::less<>> categories;
  };
  mutable std::mutex mu_;
  std::map<std::string, KindCounts, std::less<>> kinds_;
  Totals totals_;
  std::uint64_t problems_printed_ = 0;
};

}  // namespace sluice::soak
