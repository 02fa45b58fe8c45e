#pragma once
// The text of the `sluice` progress display, as pure functions: human units, bars,
// durations, names that fit a column, and whole lines for the bar and the plain
// (line) modes. ProgressDisplay (progress.hpp) decides when and where they go.
// Ownership: stateless; any thread.

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace sluice::cli {

/// "512 B", "12.5 KiB", "64.0 MiB", "1.0 GiB", "2.5 TiB": binary units, one decimal,
/// the largest unit whose rounded figure stays under 1024.
std::string format_bytes(std::uint64_t bytes);

/// format_bytes of a rate plus "/s": "8.3 MiB/s". Negative or NaN rates read "0 B/s".
std::string format_speed(double bytes_per_second);

/// A rounded duration: "6s", "1m05s", "2h03m", "3d04h"; "--" for a negative, NaN or
/// absurd (over 99 days) value, which is what an ETA at a near-zero speed gives.
std::string format_duration(double seconds);

/// Seconds left at the current speed, or nothing when the total or the speed is
/// unknown (speed 0).
std::optional<double> eta_seconds(std::uint64_t done, std::optional<std::uint64_t> total,
                                  double bytes_per_second);

/// A bar of exactly `width` characters (at least 2): "[=====>    ]". fraction is
/// clamped to [0, 1]; the '>' head shows once anything arrived, until it is full.
std::string format_bar(double fraction, std::size_t width);

/// A bar of exactly `width` characters with a "<=>" that moves one step per `phase`,
/// back and forth: progress of unknown size.
std::string format_bouncing_bar(unsigned phase, std::size_t width);

/// The name made safe to print on a terminal: control characters (an ESC from a
/// server's file name could move the cursor) and invalid UTF-8 become '?'.
std::string sanitize_name(std::string_view name);

/// Columns a sanitized name takes: its UTF-8 code points (wide CJK characters count
/// one; rare in file names, and only misalign their own line).
std::size_t display_width(std::string_view text);

/// The sanitized `name` in at most `width` columns: as is when it fits, else its
/// start and end around "..." (the end keeps the extension visible); never cuts a
/// UTF-8 sequence.
std::string shorten_name(std::string_view name, std::size_t width);

/// The file name part of a path ("dir/a.iso" -> "a.iso"); the path when it has none.
std::string_view base_name(std::string_view path);

/// One transfer (or the total) as a line shows it.
struct ProgressLine {
  enum class State { running, done, failed };
  std::string name;  ///< as known; the format functions sanitize it
  std::uint64_t bytes_done = 0;
  std::optional<std::uint64_t> total;
  /// running: the current speed; done and failed: the average over `elapsed_s`.
  double bytes_per_second = 0;
  double elapsed_s = 0;  ///< done and failed: how long it ran
  State state = State::running;
};

/// How bar lines share a terminal row. Every line of one frame uses the same layout,
/// so names, bars and figures form columns.
struct BarLayout {
  std::size_t columns = 80;  ///< the terminal's width; lines use at most columns - 1
  std::size_t name_width = 0;
  std::size_t bar_width = 0;  ///< 0: no bar (a narrow terminal)
  int fields =
      4;  ///< figures shown: percent, sizes, speed, ETA (fewest dropped first from the right)
};

/// The layout for a terminal `columns` wide whose longest name is `longest_name`
/// columns: all four figures and a bar of at least 7 when they fit, else fewer
/// figures (ETA, then speed, then sizes, then percent go), else the bar goes.
BarLayout choose_bar_layout(std::size_t columns, std::size_t longest_name);

/// "NAME [=====>    ]  19%   12.5 MiB / 64.0 MiB    8.3 MiB/s  ETA 6s", within
/// layout.columns - 1 columns (the last column is never written: a terminal that
/// auto-wraps there would break the cursor arithmetic). Unknown total: a bouncing bar
/// (step `phase`), no percent, no ETA. Done: a full bar, the size, the average speed
/// and "in 5s". Failed: the bar where it stopped and "failed". No trailing spaces.
std::string format_bar_line(const ProgressLine& line, const BarLayout& layout, unsigned phase);

/// "NAME 12.5 MiB / 64.0 MiB 19% 8.3 MiB/s ETA 6s"; unknown total:
/// "NAME 12.5 MiB 8.3 MiB/s"; done: "NAME 64.0 MiB / 64.0 MiB 100% 12.1 MiB/s done in 5s";
/// failed: "NAME 12.5 MiB / 64.0 MiB 19% failed after 3s". No newline.
std::string format_plain_line(const ProgressLine& line);

}  // namespace sluice::cli
