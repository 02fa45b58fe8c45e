#include "cli/output/progress_format.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>

#include "cli/output/utf8.hpp"

namespace sluice::cli {
namespace {

// Field widths of a bar line, so that the lines of one frame form columns. Sizes and
// speed fit their common forms; the rare wider one ("1023.9 MiB / 1023.9 MiB") pushes
// the tail right, into the room the tail keeps for its longest form.
constexpr std::size_t kPercentWidth = 4;  // "100%"
constexpr std::size_t kSizesWidth = 19;   // "12.5 MiB / 64.0 MiB"
constexpr std::size_t kSpeedWidth = 11;   // "999.9 MiB/s"
constexpr std::size_t kTailWidth = 10;    // "ETA 23h59m"
constexpr std::size_t kMinBar = 7;
constexpr std::size_t kMinName = 8;
constexpr std::size_t kMaxName = 40;

// Columns the first `fields` figures take, with the spaces between them.
std::size_t stats_width(int fields) {
  const std::size_t widths[] = {kPercentWidth, 1 + kSizesWidth, 2 + kSpeedWidth, 2 + kTailWidth};
  std::size_t sum = 0;
  for (int i = 0; i < fields && i < 4; ++i) sum += widths[i];
  return sum;
}

// The first `points` code points of `text`.
std::string_view prefix_points(std::string_view text, std::size_t points) {
  std::size_t i = 0;
  for (std::size_t seen = 0; i < text.size(); ++i) {
    if (is_continuation(static_cast<unsigned char>(text[i]))) continue;
    if (seen++ == points) break;
  }
  return text.substr(0, i);
}

// The last `points` code points of `text`.
std::string_view suffix_points(std::string_view text, std::size_t points) {
  std::size_t i = text.size();
  for (std::size_t seen = 0; i > 0 && seen < points;) {
    --i;
    if (!is_continuation(static_cast<unsigned char>(text[i]))) ++seen;
  }
  return text.substr(i);
}

std::string pad_left(std::string text, std::size_t width) {
  std::size_t used = display_width(text);
  if (used < width) text.insert(0, width - used, ' ');
  return text;
}

std::string pad_right(std::string text, std::size_t width) {
  std::size_t used = display_width(text);
  if (used < width) text.append(width - used, ' ');
  return text;
}

void trim_right(std::string& text) {
  while (!text.empty() && text.back() == ' ') text.pop_back();
}

bool has_total(const ProgressLine& line) { return line.total.has_value(); }

// Whole percent, rounded down so that 100% means every byte.
unsigned percent_of(std::uint64_t done, std::uint64_t total) {
  if (done >= total) return 100;
  return static_cast<unsigned>(static_cast<double>(done) * 100.0 / static_cast<double>(total));
}

std::string percent_text(const ProgressLine& line) {
  if (line.state == ProgressLine::State::done) return "100%";
  if (!has_total(line)) return "";
  return std::to_string(percent_of(line.bytes_done, *line.total)) + "%";
}

// "12.5 MiB / 64.0 MiB", or one figure when the total is unknown, or, in a bar line
// of a complete transfer, when it would repeat itself.
std::string sizes_text(const ProgressLine& line, bool compact_when_done) {
  std::string text = format_bytes(line.bytes_done);
  bool complete = line.state == ProgressLine::State::done &&
                  (!has_total(line) || *line.total == line.bytes_done);
  if (has_total(line) && !(compact_when_done && complete)) {
    text += " / " + format_bytes(*line.total);
  }
  return text;
}

std::string bar_tail(const ProgressLine& line) {
  switch (line.state) {
    case ProgressLine::State::running: {
      if (!has_total(line)) return "";
      std::optional<double> eta = eta_seconds(line.bytes_done, line.total, line.bytes_per_second);
      return "ETA " + (eta ? format_duration(*eta) : std::string("--"));
    }
    case ProgressLine::State::done: return "in " + format_duration(line.elapsed_s);
    case ProgressLine::State::failed: return "failed";
  }
  return "";
}

std::string bar_for(const ProgressLine& line, std::size_t width, unsigned phase) {
  if (line.state == ProgressLine::State::done) return format_bar(1.0, width);
  if (!has_total(line)) {
    return line.state == ProgressLine::State::running ? format_bouncing_bar(phase, width)
                                                      : format_bar(0.0, width);
  }
  double fraction = *line.total == 0
                        ? 1.0
                        : static_cast<double>(line.bytes_done) / static_cast<double>(*line.total);
  return format_bar(fraction, width);
}

}  // namespace

std::string format_bytes(std::uint64_t bytes) {
  if (bytes < 1024) return std::to_string(bytes) + " B";
  static const char* const kUnits[] = {"B", "KiB", "MiB", "GiB", "TiB", "PiB", "EiB"};
  double value = static_cast<double>(bytes) / 1024.0;
  std::size_t unit = 1;
  // Compare the figure as printed, so 1048575 bytes reads "1.0 MiB", not "1024.0 KiB".
  while (unit + 1 < std::size(kUnits) && std::round(value * 10.0) / 10.0 >= 1024.0) {
    value /= 1024.0;
    ++unit;
  }
  char text[32];
  std::snprintf(text, sizeof text, "%.1f %s", value, kUnits[unit]);
  return text;
}

std::string format_speed(double bytes_per_second) {
  if (!(bytes_per_second > 0)) return "0 B/s";
  double capped = std::min(bytes_per_second, 1e18);
  return format_bytes(static_cast<std::uint64_t>(std::llround(capped))) + "/s";
}

std::string format_duration(double seconds) {
  if (!(seconds >= 0) || seconds > 99.0 * 86400.0) return "--";
  long long total = std::llround(seconds);
  char text[32];
  if (total < 60) {
    std::snprintf(text, sizeof text, "%llds", total);
  } else if (total < 3600) {
    std::snprintf(text, sizeof text, "%lldm%02llds", total / 60, total % 60);
  } else if (total < 86400) {
    std::snprintf(text, sizeof text, "%lldh%02lldm", total / 3600, total % 3600 / 60);
  } else {
    std::snprintf(text, sizeof text, "%lldd%02lldh", total / 86400, total % 86400 / 3600);
  }
  return text;
}

std::optional<double> eta_seconds(std::uint64_t done, std::optional<std::uint64_t> total,
                                  double bytes_per_second) {
  if (!total) return std::nullopt;
  if (done >= *total) return 0.0;
  if (!(bytes_per_second > 0)) return std::nullopt;
  return static_cast<double>(*total - done) / bytes_per_second;
}

std::string format_bar(double fraction, std::size_t width) {
  if (width < 2) return std::string(width, ' ');
  const std::size_t inner = width - 2;
  if (!(fraction > 0)) return "[" + std::string(inner, ' ') + "]";
  fraction = std::min(fraction, 1.0);
  auto filled = static_cast<std::size_t>(fraction * static_cast<double>(inner));
  filled = std::min(filled, inner);
  std::string bar = "[" + std::string(filled, '=');
  if (filled < inner) bar += '>' + std::string(inner - filled - 1, ' ');
  return bar + "]";
}

std::string format_bouncing_bar(unsigned phase, std::size_t width) {
  if (width < 2) return std::string(width, ' ');
  const std::size_t inner = width - 2;
  if (inner < 3) return "[" + std::string(inner, '=') + "]";
  const std::size_t travel = inner - 3;
  std::size_t position = 0;
  if (travel > 0) {
    const std::size_t step = phase % (2 * travel);
    position = step <= travel ? step : 2 * travel - step;
  }
  return "[" + std::string(position, ' ') + "<=>" + std::string(travel - position, ' ') + "]";
}

std::string sanitize_name(std::string_view name) {
  std::string safe;
  safe.reserve(name.size());
  for (std::size_t i = 0; i < name.size();) {
    const auto byte = static_cast<unsigned char>(name[i]);
    if (byte < 0x80) {
      safe += byte < 0x20 || byte == 0x7F ? '?' : static_cast<char>(byte);
      ++i;
      continue;
    }
    std::size_t length = utf8_sequence_length(name, i);
    if (length == 0) {
      safe += '?';
      ++i;
      continue;
    }
    safe.append(name.substr(i, length));
    i += length;
  }
  return safe;
}

std::size_t display_width(std::string_view text) {
  std::size_t points = 0;
  for (char c : text) points += is_continuation(static_cast<unsigned char>(c)) ? 0 : 1;
  return points;
}

std::string shorten_name(std::string_view name, std::size_t width) {
  std::string safe = sanitize_name(name);
  if (display_width(safe) <= width) return safe;
  if (width <= 3) return std::string(prefix_points(safe, width));
  const std::size_t head = (width - 3 + 1) / 2;
  const std::size_t tail = width - 3 - head;
  return std::string(prefix_points(safe, head)) + "..." + std::string(suffix_points(safe, tail));
}

std::string_view base_name(std::string_view path) {
  std::size_t slash = path.find_last_of('/');
  if (slash == std::string_view::npos || slash + 1 == path.size()) return path;
  return path.substr(slash + 1);
}

BarLayout choose_bar_layout(std::size_t columns, std::size_t longest_name) {
  const std::size_t usable = columns > 1 ? columns - 1 : 1;
  const std::size_t name_min = std::max<std::size_t>(1, std::min(longest_name, kMinName));
  // First keep a bar of kMinBar and drop figures from the right; then drop the bar.
  for (int fields = 4; fields >= 0; --fields) {
    const std::size_t stats = stats_width(fields) + (fields > 0 ? 1 : 0);
    if (usable < stats + name_min + 1 + kMinBar) continue;
    // The bar takes a third of the room, the name what it needs of the rest.
    const std::size_t avail = usable - stats;
    const std::size_t bar_share = std::max(kMinBar, avail / 3);
    std::size_t name_width = std::min({avail - 1 - std::min(bar_share, avail - 1 - name_min),
                                       kMaxName, std::max<std::size_t>(longest_name, 1)});
    name_width = std::max(name_width, name_min);
    return BarLayout{columns, name_width, avail - name_width - 1, fields};
  }
  for (int fields = 4; fields >= 0; --fields) {
    const std::size_t stats = stats_width(fields) + (fields > 0 ? 1 : 0);
    if (usable < stats + name_min) continue;
    return BarLayout{columns, std::min(usable - stats, std::max<std::size_t>(longest_name, 1)), 0,
                     fields};
  }
  return BarLayout{columns, usable, 0, 0};
}

std::string format_bar_line(const ProgressLine& line, const BarLayout& layout, unsigned phase) {
  const std::string head =
      pad_right(shorten_name(line.name, layout.name_width), layout.name_width) +
      (layout.bar_width > 0 ? " " + bar_for(line, layout.bar_width, phase) : "");
  const std::size_t usable = layout.columns > 1 ? layout.columns - 1 : 1;
  // A figure wider than its column can push the line past the layout: then this line
  // drops figures from the right rather than show half of one.
  for (int fields = layout.fields; fields >= 0; --fields) {
    std::string text = head;
    if (fields >= 1) text += " " + pad_left(percent_text(line), kPercentWidth);
    if (fields >= 2) text += " " + pad_left(sizes_text(line, true), kSizesWidth);
    if (fields >= 3) {
      bool failed = line.state == ProgressLine::State::failed;
      text += "  " + pad_left(failed ? "" : format_speed(line.bytes_per_second), kSpeedWidth);
    }
    if (fields >= 4) text += "  " + bar_tail(line);
    trim_right(text);
    if (display_width(text) <= usable) return text;
  }
  return std::string(prefix_points(head, usable));
}

std::string format_plain_line(const ProgressLine& line) {
  std::string text = sanitize_name(line.name) + " " + sizes_text(line, false);
  std::string percent = percent_text(line);
  if (has_total(line) && !percent.empty()) text += " " + percent;
  switch (line.state) {
    case ProgressLine::State::running:
      text += " " + format_speed(line.bytes_per_second);
      if (has_total(line)) {
        std::optional<double> eta = eta_seconds(line.bytes_done, line.total, line.bytes_per_second);
        text += " ETA " + (eta ? format_duration(*eta) : std::string("--"));
      }
      break;
    case ProgressLine::State::done:
      text +=
          " " + format_speed(line.bytes_per_second) + " done in " + format_duration(line.elapsed_s);
      break;
    case ProgressLine::State::failed:
      text += " failed after " + format_duration(line.elapsed_s);
      break;
  }
  return text;
}

}  // namespace sluice::cli
