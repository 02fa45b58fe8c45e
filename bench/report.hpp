#pragma once
// How benchmarks report: `name value` lines on stdout (one figure per line, for
// scripts) and free-form notes on stderr (for people). Main thread only.

#include <string_view>
#include <vector>

namespace sluice::bench {

/// The median of `values` (mean of the middle two for an even count); 0 when empty.
/// The median, not the mean, because one run disturbed by a neighbour on a shared
/// machine should not move the figure.
double median(std::vector<double> values);

/// The nearest-rank percentile of `values`: the smallest value that at least
/// `fraction` (0.5, 0.99) of them do not exceed; 0 when empty. Nearest rank rather than
/// interpolation, so that every figure is a time some request really took.
double percentile(std::vector<double> values, double fraction);

/// Prints "name value" with `decimals` digits after the point.
void print_figure(std::string_view name, double value, int decimals = 3);

/// Prints "name text" for a figure that is a word, not a number (http_version 2).
void print_text(std::string_view name, std::string_view text);

/// Prints "sluice-bench: message" on stderr.
void print_note(std::string_view message);

}  // namespace sluice::bench
