// Figure and note printing for sluice-bench.

#include "bench/report.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>

namespace sluice::bench {

double median(std::vector<double> values) {
  if (values.empty()) return 0;
  std::sort(values.begin(), values.end());
  std::size_t middle = values.size() / 2;
  if (values.size() % 2 == 1) return values[middle];
  return (values[middle - 1] + values[middle]) / 2;
}

double percentile(std::vector<double> values, double fraction) {
  if (values.empty()) return 0;
  std::sort(values.begin(), values.end());
  const double rank = std::ceil(fraction * static_cast<double>(values.size()));
  const std::size_t index = rank < 1 ? 0 : static_cast<std::size_t>(rank) - 1;
  return values[std::min(index, values.size() - 1)];
}

void print_figure(std::string_view name, double value, int decimals) {
  std::printf("%.*s %.*f\n", static_cast<int>(name.size()), name.data(), decimals, value);
}

void print_text(std::string_view name, std::string_view text) {
  std::printf("%.*s %.*s\n", static_cast<int>(name.size()), name.data(),
              static_cast<int>(text.size()), text.data());
}

void print_note(std::string_view message) {
  std::fprintf(stderr, "sluice-bench: %.*s\n", static_cast<int>(message.size()), message.data());
}

}  // namespace sluice::bench
