// The progress display of the `sluice` command: its formatting functions, and the
// exact text a terminal (or a log) receives, replayed through a small screen model
// that understands the escape codes the display may use and flags any other.
#include "cli/output/progress.hpp"

#include <gtest/gtest.h>

#include <atomic>
#include <cmath>
#include <string>
#include <thread>
#include <vector>

#include "cli/output/progress_format.hpp"

namespace sluice::cli {
namespace {

using namespace std::chrono_literals;
using State = ProgressLine::State;
constexpr std::uint64_t kMiB = 1024 * 1024;

// A terminal as far as the display uses one: printable bytes, CR, LF (with the tty's
// ONLCR, so LF also returns the carriage), ESC[nA, ESC[K and ESC[J. Row 0 is the first
// row the display wrote to; cursor-up stops there as a real screen's top would.
class ScreenModel {
 public:
  void feed(std::string_view text) {
    for (std::size_t i = 0; i < text.size(); ++i) {
      char c = text[i];
      if (c == '\r') {
        col_ = 0;
      } else if (c == '\n') {
        ++row_;
        col_ = 0;
      } else if (c == '\x1b') {
        i = escape(text, i);
      } else if (static_cast<unsigned char>(c) < 0x20 || c == 0x7f) {
        unknown_.push_back(std::string(1, c));
      } else {
        put(c);
      }
    }
  }
  // The rows written, trailing empty ones dropped.
  std::vector<std::string> rows() const {
    std::vector<std::string> out = rows_;
    while (!out.empty() && out.back().empty()) out.pop_back();
    return out;
  }
  std::size_t cursor_row() const { return row_; }
  std::size_t cursor_col() const { return col_; }
  const std::vector<std::string>& unknown_sequences() const { return unknown_; }
  std::size_t widest_row() const {
    std::size_t widest = 0;
    for (const std::string& row : rows_) widest = std::max(widest, row.size());
    return widest;
  }

 private:
  std::size_t escape(std::string_view text, std::size_t at) {
    std::size_t i = at + 1;
    if (i >= text.size() || text[i] != '[') {
      unknown_.push_back("ESC");
      return at;
    }
    std::size_t number = 0;
    bool has_number = false;
    for (++i; i < text.size() && text[i] >= '0' && text[i] <= '9'; ++i) {
      number = number * 10 + static_cast<std::size_t>(text[i] - '0');
      has_number = true;
    }
    char final_byte = i < text.size() ? text[i] : '\0';
    if (final_byte == 'A' && has_number && number > 0) {
      row_ = row_ >= number ? row_ - number : 0;
    } else if (final_byte == 'K' && !has_number) {
      row_at(row_).resize(std::min(row_at(row_).size(), col_));
    } else if (final_byte == 'J' && !has_number) {
      row_at(row_).resize(std::min(row_at(row_).size(), col_));
      rows_.resize(row_ + 1);
    } else {
      unknown_.push_back(std::string(text.substr(at, i - at + 1)));
    }
    return i;
  }
  std::string& row_at(std::size_t row) {
    if (rows_.size() <= row) rows_.resize(row + 1);
    return rows_[row];
  }
  void put(char c) {
    std::string& row = row_at(row_);
    if (row.size() <= col_) row.resize(col_ + 1, ' ');
    row[col_++] = c;
  }

  std::vector<std::string> rows_;
  std::size_t row_ = 0, col_ = 0;
  std::vector<std::string> unknown_;
};

// A display on a manual clock whose output is kept whole and per write.
struct Harness {
  explicit Harness(ProgressMode mode, std::size_t columns = 100, std::size_t rows = 24) {
    ProgressDisplayOptions options;
    options.mode = mode;
    options.columns = columns;
    options.rows = rows;
    options.clock = [this] { return now; };
    options.sink = [this](std::string_view text) {
      output.append(text);
      writes.emplace_back(text);
    };
    display = std::make_unique<ProgressDisplay>(std::move(options));
  }
  void advance(std::chrono::milliseconds by) { now += by; }
  ScreenModel screen() const {
    ScreenModel model;
    model.feed(output);
    return model;
  }

  std::chrono::steady_clock::time_point now{std::chrono::hours(1000)};
  std::string output;
  std::vector<std::string> writes;
  std::unique_ptr<ProgressDisplay> display;
};

DownloadProgress progress(std::uint64_t done, std::optional<std::uint64_t> total, double speed,
                          std::string path = "") {
  DownloadProgress p;
  p.path = std::move(path);
  p.bytes_done = done;
  p.total = total;
  p.bytes_per_second = speed;
  p.active_ranges = 1;
  return p;
}

bool contains(const std::string& text, std::string_view part) {
  return text.find(part) != std::string::npos;
}

// ---- formatting -------------------------------------------------------------------

TEST(FormatBytes, UsesBinaryUnitsWithOneDecimal) {
  EXPECT_EQ(format_bytes(0), "0 B");
  EXPECT_EQ(format_bytes(1023), "1023 B");
  EXPECT_EQ(format_bytes(1024), "1.0 KiB");
  EXPECT_EQ(format_bytes(12 * kMiB + kMiB / 2), "12.5 MiB");
  EXPECT_EQ(format_bytes(1024 * kMiB), "1.0 GiB");
  EXPECT_EQ(format_bytes(5ull * 1024 * 1024 * kMiB / 2), "2.5 TiB");
}

TEST(FormatBytes, NeverPrints1024OfAUnit) {
  EXPECT_EQ(format_bytes(kMiB - 1), "1.0 MiB");
  EXPECT_EQ(format_bytes(1024 * kMiB - 1), "1.0 GiB");
  EXPECT_EQ(format_bytes(1023 * 1024 + 900), "1023.9 KiB");
}

TEST(FormatSpeed, AppendsPerSecondAndTreatsNonsenseAsZero) {
  EXPECT_EQ(format_speed(8.3 * kMiB), "8.3 MiB/s");
  EXPECT_EQ(format_speed(512), "512 B/s");
  EXPECT_EQ(format_speed(0), "0 B/s");
  EXPECT_EQ(format_speed(-5), "0 B/s");
  EXPECT_EQ(format_speed(std::nan("")), "0 B/s");
}

TEST(FormatDuration, RoundsToTheTwoLargestUnits) {
  EXPECT_EQ(format_duration(0), "0s");
  EXPECT_EQ(format_duration(6.4), "6s");
  EXPECT_EQ(format_duration(59.6), "1m00s");
  EXPECT_EQ(format_duration(65), "1m05s");
  EXPECT_EQ(format_duration(2 * 3600 + 3 * 60 + 10), "2h03m");
  EXPECT_EQ(format_duration(3 * 86400 + 4 * 3600), "3d04h");
}

TEST(FormatDuration, UnknowableValuesReadAsDashes) {
  EXPECT_EQ(format_duration(-1), "--");
  EXPECT_EQ(format_duration(std::nan("")), "--");
  EXPECT_EQ(format_duration(1e12), "--");
}

TEST(EtaSeconds, NeedsATotalAndASpeed) {
  EXPECT_DOUBLE_EQ(eta_seconds(25, 100, 25).value(), 3.0);
  EXPECT_FALSE(eta_seconds(25, std::nullopt, 25).has_value());
  EXPECT_FALSE(eta_seconds(25, 100, 0).has_value());
  EXPECT_DOUBLE_EQ(eta_seconds(100, 100, 0).value(), 0.0);
}

TEST(FormatBar, FillsInProportionWithAHead) {
  EXPECT_EQ(format_bar(0.0, 12), "[          ]");
  EXPECT_EQ(format_bar(0.01, 12), "[>         ]");
  EXPECT_EQ(format_bar(0.5, 12), "[=====>    ]");
  EXPECT_EQ(format_bar(0.999, 12), "[=========>]");
  EXPECT_EQ(format_bar(1.0, 12), "[==========]");
  EXPECT_EQ(format_bar(7.0, 12), "[==========]");
}

TEST(FormatBar, IsAlwaysExactlyTheWidthAsked) {
  for (std::size_t width = 2; width < 40; ++width) {
    for (double fraction : {-1.0, 0.0, 0.001, 0.33, 0.5, 0.9999, 1.0, 2.0, std::nan("")}) {
      EXPECT_EQ(format_bar(fraction, width).size(), width) << width << " " << fraction;
    }
    for (unsigned phase = 0; phase < 100; ++phase) {
      EXPECT_EQ(format_bouncing_bar(phase, width).size(), width) << width << " " << phase;
    }
  }
}

TEST(FormatBouncingBar, MovesRightThenBack) {
  EXPECT_EQ(format_bouncing_bar(0, 9), "[<=>    ]");
  EXPECT_EQ(format_bouncing_bar(1, 9), "[ <=>   ]");
  EXPECT_EQ(format_bouncing_bar(4, 9), "[    <=>]");
  EXPECT_EQ(format_bouncing_bar(5, 9), "[   <=> ]");
  EXPECT_EQ(format_bouncing_bar(8, 9), "[<=>    ]");
}

TEST(SanitizeName, ReplacesControlCharactersAndBadUtf8) {
  EXPECT_EQ(sanitize_name("a\x1b[2Jb\n"), "a?[2Jb?");
  EXPECT_EQ(sanitize_name("caf\xc3\xa9.txt"), "caf\xc3\xa9.txt");
  EXPECT_EQ(sanitize_name("x\xffy"), "x?y");
  EXPECT_EQ(sanitize_name("\xc2\x9b"
                          "31m"),
            "??31m");                          // C1 CSI
  EXPECT_EQ(sanitize_name("\xe2\x82"), "??");  // truncated sequence
  EXPECT_EQ(sanitize_name("del\x7f"), "del?");
}

TEST(ShortenName, KeepsStartAndEndAroundDots) {
  EXPECT_EQ(shorten_name("short.iso", 16), "short.iso");
  EXPECT_EQ(shorten_name("ubuntu-22.04.3-desktop-amd64.iso", 16), "ubuntu-...64.iso");
  EXPECT_EQ(shorten_name("abcdef", 3), "abc");
  EXPECT_EQ(shorten_name("abcdef", 0), "");
}

TEST(ShortenName, CountsAndCutsWholeUtf8Characters) {
  const std::string name = "\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9";  // five é
  EXPECT_EQ(display_width(name), 5u);
  EXPECT_EQ(shorten_name(name, 5), name);
  EXPECT_EQ(shorten_name(name, 4), "\xc3\xa9...");
  EXPECT_EQ(display_width(shorten_name(name, 4)), 4u);
}

TEST(BaseName, TakesTheLastPathComponent) {
  EXPECT_EQ(base_name("dir/sub/a.iso"), "a.iso");
  EXPECT_EQ(base_name("a.iso"), "a.iso");
  EXPECT_EQ(base_name("dir/"), "dir/");
}

ProgressLine running_line() {
  ProgressLine line;
  line.name = "NAME";
  line.bytes_done = 12 * kMiB + kMiB / 2;
  line.total = 64 * kMiB;
  line.bytes_per_second = 8.3 * kMiB;
  return line;
}

TEST(FormatPlainLine, RunningWithKnownTotal) {
  EXPECT_EQ(format_plain_line(running_line()), "NAME 12.5 MiB / 64.0 MiB 19% 8.3 MiB/s ETA 6s");
}

TEST(FormatPlainLine, UnknownTotalHasNoPercentOrEta) {
  ProgressLine line = running_line();
  line.total.reset();
  EXPECT_EQ(format_plain_line(line), "NAME 12.5 MiB 8.3 MiB/s");
}

TEST(FormatPlainLine, ZeroSpeedHasAnUnknownEta) {
  ProgressLine line = running_line();
  line.bytes_per_second = 0;
  EXPECT_EQ(format_plain_line(line), "NAME 12.5 MiB / 64.0 MiB 19% 0 B/s ETA --");
}

TEST(FormatPlainLine, FinalLinesSayDoneOrFailed) {
  ProgressLine line = running_line();
  line.bytes_done = 64 * kMiB;
  line.bytes_per_second = 12.8 * kMiB;
  line.elapsed_s = 5;
  line.state = State::done;
  EXPECT_EQ(format_plain_line(line), "NAME 64.0 MiB / 64.0 MiB 100% 12.8 MiB/s done in 5s");
  line = running_line();
  line.elapsed_s = 3;
  line.state = State::failed;
  EXPECT_EQ(format_plain_line(line), "NAME 12.5 MiB / 64.0 MiB 19% failed after 3s");
}

TEST(FormatBarLine, ShowsEveryFigureOnAWideTerminal) {
  const BarLayout layout = choose_bar_layout(100, 4);
  EXPECT_EQ(layout.fields, 4);
  EXPECT_GE(layout.bar_width, 7u);
  const std::string text = format_bar_line(running_line(), layout, 0);
  EXPECT_TRUE(text.starts_with("NAME ["));
  EXPECT_TRUE(contains(text, "=>")) << text;
  EXPECT_TRUE(contains(text, " 19% ")) << text;
  EXPECT_TRUE(contains(text, "12.5 MiB / 64.0 MiB")) << text;
  EXPECT_TRUE(contains(text, "8.3 MiB/s")) << text;
  EXPECT_TRUE(text.ends_with("ETA 6s")) << text;
  EXPECT_LE(text.size(), 99u);
}

TEST(FormatBarLine, UnknownTotalBouncesWithoutPercentOrEta) {
  ProgressLine line = running_line();
  line.total.reset();
  const BarLayout layout = choose_bar_layout(100, 4);
  const std::string first = format_bar_line(line, layout, 0);
  const std::string second = format_bar_line(line, layout, 1);
  EXPECT_TRUE(contains(first, "<=>")) << first;
  EXPECT_NE(first, second);
  EXPECT_FALSE(contains(first, "%")) << first;
  EXPECT_FALSE(contains(first, "ETA")) << first;
  EXPECT_TRUE(contains(first, "12.5 MiB")) << first;
}

TEST(FormatBarLine, FinalLinesShowFullBarOrWhereItStopped) {
  const BarLayout layout = choose_bar_layout(100, 4);
  ProgressLine line = running_line();
  line.bytes_done = 64 * kMiB;
  line.elapsed_s = 5;
  line.bytes_per_second = 12.8 * kMiB;
  line.state = State::done;
  std::string text = format_bar_line(line, layout, 0);
  EXPECT_TRUE(contains(text, "[" + std::string(layout.bar_width - 2, '=') + "]")) << text;
  EXPECT_TRUE(contains(text, "100%")) << text;
  EXPECT_FALSE(contains(text, "/ 64.0")) << text;
  EXPECT_TRUE(text.ends_with("12.8 MiB/s  in 5s")) << text;
  line = running_line();
  line.state = State::failed;
  text = format_bar_line(line, layout, 0);
  EXPECT_TRUE(text.ends_with("failed")) << text;
  EXPECT_TRUE(contains(text, "19%")) << text;
  EXPECT_FALSE(contains(text, "MiB/s")) << text;
}

TEST(FormatBarLine, NeverReachesTheLastColumn) {
  std::vector<ProgressLine> lines;
  for (State state : {State::running, State::done, State::failed}) {
    for (bool known : {true, false}) {
      ProgressLine line = running_line();
      line.name = "a-rather-long-file-name-that-needs-shortening.tar.zst";
      line.bytes_done = 1023 * kMiB + 1000 * 1024;
      line.total = known ? std::optional<std::uint64_t>(1023 * kMiB + 1020 * 1024) : std::nullopt;
      line.bytes_per_second = 1023.9 * 1024;
      line.elapsed_s = 86400 * 3;
      line.state = state;
      lines.push_back(line);
    }
  }
  for (std::size_t columns = 1; columns <= 220; ++columns) {
    const BarLayout layout = choose_bar_layout(columns, 52);
    for (const ProgressLine& line : lines) {
      const std::string text = format_bar_line(line, layout, columns);
      EXPECT_LE(display_width(text), columns > 1 ? columns - 1 : 1) << columns << ": " << text;
    }
  }
}

TEST(ChooseBarLayout, NarrowTerminalsDropFiguresBeforeTheBar) {
  const BarLayout wide = choose_bar_layout(120, 20);
  EXPECT_EQ(wide.fields, 4);
  EXPECT_EQ(wide.name_width, 20u);
  const BarLayout narrow = choose_bar_layout(50, 20);
  EXPECT_LT(narrow.fields, 4);
  EXPECT_GE(narrow.bar_width, 7u);
  const BarLayout tiny = choose_bar_layout(12, 20);
  EXPECT_EQ(tiny.fields, 0);
}

TEST(ProgressModes, ParseAndDefault) {
  EXPECT_EQ(parse_progress_mode("bar"), ProgressMode::bar);
  EXPECT_EQ(parse_progress_mode("line"), ProgressMode::line);
  EXPECT_EQ(parse_progress_mode("none"), ProgressMode::none);
  EXPECT_FALSE(parse_progress_mode("dots").has_value());
  EXPECT_EQ(default_progress_mode(true), ProgressMode::bar);
  EXPECT_EQ(default_progress_mode(false), ProgressMode::none);
}

// ---- the display, bar mode --------------------------------------------------------

TEST(BarDisplay, DrawsNothingBeforeTheFirstUpdate) {
  Harness h(ProgressMode::bar);
  h.display->add("https://example.org/a.iso");
  h.display->tick();
  EXPECT_EQ(h.output, "");
}

TEST(BarDisplay, FirstFrameIsOneRowPerTransferPlusTotal) {
  Harness h(ProgressMode::bar);
  std::size_t a = h.display->add("https://example.org/a.iso");
  std::size_t b = h.display->add("https://example.org/b.iso");
  h.display->update(a, progress(16 * kMiB, 64 * kMiB, 4 * kMiB, "out/a.iso"));
  h.display->update(b, progress(8 * kMiB, 32 * kMiB, 2 * kMiB, "out/b.iso"));
  h.display->tick();
  ASSERT_EQ(h.writes.size(), 1u);
  EXPECT_EQ(h.output.find("\x1b[3A"), std::string::npos);  // nothing to move over yet
  ScreenModel screen = h.screen();
  EXPECT_TRUE(screen.unknown_sequences().empty());
  ASSERT_EQ(screen.rows().size(), 3u);
  EXPECT_TRUE(screen.rows()[0].starts_with("a.iso ")) << screen.rows()[0];
  EXPECT_TRUE(contains(screen.rows()[0], "16.0 MiB / 64.0 MiB")) << screen.rows()[0];
  EXPECT_TRUE(screen.rows()[1].starts_with("b.iso ")) << screen.rows()[1];
  EXPECT_TRUE(screen.rows()[2].starts_with("total 0/2 ")) << screen.rows()[2];
  EXPECT_TRUE(contains(screen.rows()[2], "24.0 MiB / 96.0 MiB")) << screen.rows()[2];
  EXPECT_TRUE(contains(screen.rows()[2], "6.0 MiB/s")) << screen.rows()[2];
  EXPECT_EQ(screen.cursor_row(), 3u);
  EXPECT_EQ(screen.cursor_col(), 0u);
}

TEST(BarDisplay, LaterFramesRedrawInPlace) {
  Harness h(ProgressMode::bar);
  std::size_t a = h.display->add("a");
  std::size_t b = h.display->add("b");
  h.display->update(a, progress(1 * kMiB, 64 * kMiB, kMiB));
  h.display->update(b, progress(1 * kMiB, 64 * kMiB, kMiB));
  h.display->tick();
  h.advance(200ms);
  h.display->update(a, progress(40 * kMiB, 64 * kMiB, kMiB));
  h.display->tick();
  ASSERT_EQ(h.writes.size(), 2u);
  EXPECT_TRUE(h.writes[1].starts_with("\r\x1b[3A")) << h.writes[1];
  ScreenModel screen = h.screen();
  ASSERT_EQ(screen.rows().size(), 3u);
  EXPECT_TRUE(contains(screen.rows()[0], "40.0 MiB / 64.0 MiB")) << screen.rows()[0];
  EXPECT_TRUE(contains(screen.rows()[2], "41.0 MiB / 128.0 MiB")) << screen.rows()[2];
  EXPECT_EQ(screen.cursor_row(), 3u);
}

TEST(BarDisplay, RedrawsAtMostOncePerInterval) {
  Harness h(ProgressMode::bar);
  std::size_t a = h.display->add("a");
  h.display->update(a, progress(1, 100, 1));
  h.display->tick();
  h.display->update(a, progress(2, 100, 1));
  h.advance(199ms);
  h.display->tick();
  EXPECT_EQ(h.writes.size(), 1u);
  h.advance(1ms);
  h.display->tick();
  EXPECT_EQ(h.writes.size(), 2u);
}

TEST(BarDisplay, UnchangedKnownTotalsAreNotRewritten) {
  Harness h(ProgressMode::bar);
  std::size_t a = h.display->add("a");
  h.display->update(a, progress(1, 100, 1));
  h.display->tick();
  h.advance(1s);
  h.display->tick();
  EXPECT_EQ(h.writes.size(), 1u);
}

TEST(BarDisplay, UnknownTotalKeepsMoving) {
  Harness h(ProgressMode::bar);
  std::size_t a = h.display->add("a");
  h.display->update(a, progress(5 * kMiB, std::nullopt, kMiB));
  h.display->tick();
  h.advance(200ms);
  h.display->tick();
  ASSERT_EQ(h.writes.size(), 2u);
  ScreenModel screen = h.screen();
  ASSERT_EQ(screen.rows().size(), 1u);
  EXPECT_TRUE(contains(screen.rows()[0], "<=>")) << screen.rows()[0];
  EXPECT_FALSE(contains(screen.rows()[0], "%")) << screen.rows()[0];
  EXPECT_FALSE(contains(screen.rows()[0], "ETA")) << screen.rows()[0];
}

TEST(BarDisplay, EndedTransferLeavesItsFinalLineAboveTheLiveOnes) {
  Harness h(ProgressMode::bar);
  std::size_t a = h.display->add("a.iso");
  std::size_t b = h.display->add("b.iso");
  h.display->update(a, progress(32 * kMiB, 64 * kMiB, kMiB));
  h.display->update(b, progress(1 * kMiB, 64 * kMiB, kMiB));
  h.display->tick();
  h.advance(4s);
  h.display->update(a, progress(64 * kMiB, 64 * kMiB, kMiB));
  h.display->end(a, true);
  h.display->update(a, progress(1, 64 * kMiB, kMiB));  // ignored after end()
  h.display->tick();
  ScreenModel screen = h.screen();
  ASSERT_EQ(screen.rows().size(), 3u);
  EXPECT_TRUE(screen.rows()[0].starts_with("a.iso ")) << screen.rows()[0];
  EXPECT_TRUE(screen.rows()[0].ends_with("16.0 MiB/s  in 4s")) << screen.rows()[0];
  EXPECT_TRUE(contains(screen.rows()[0], "64.0 MiB")) << screen.rows()[0];
  EXPECT_TRUE(screen.rows()[1].starts_with("b.iso ")) << screen.rows()[1];
  EXPECT_TRUE(screen.rows()[2].starts_with("total 1/2 ")) << screen.rows()[2];
  // The final line is no longer live: the next frame moves up over two rows only.
  h.advance(200ms);
  h.display->update(b, progress(2 * kMiB, 64 * kMiB, kMiB));
  h.display->tick();
  EXPECT_TRUE(h.writes.back().starts_with("\r\x1b[2A")) << h.writes.back();
  EXPECT_TRUE(h.screen().rows()[0].ends_with("in 4s"));
}

TEST(BarDisplay, FinishLeavesFinalLinesAndACleanLine) {
  Harness h(ProgressMode::bar);
  std::size_t a = h.display->add("a.iso");
  std::size_t b = h.display->add("b.iso");
  h.display->update(a, progress(10 * kMiB, 64 * kMiB, kMiB));
  h.display->update(b, progress(5 * kMiB, std::nullopt, kMiB));
  h.display->tick();
  h.advance(2s);
  DownloadProgress last = progress(64 * kMiB, 64 * kMiB, kMiB);
  last.finished = true;
  h.display->update(a, last);
  h.display->end(a, true);
  h.display->end(b, false);
  h.display->finish();
  ASSERT_FALSE(h.output.empty());
  EXPECT_EQ(h.output.back(), '\n');
  const std::string after_rewind = h.writes.back();
  EXPECT_TRUE(after_rewind.starts_with("\r\x1b[3A")) << after_rewind;
  ScreenModel screen = h.screen();
  EXPECT_TRUE(screen.unknown_sequences().empty());
  ASSERT_EQ(screen.rows().size(), 3u);
  EXPECT_TRUE(screen.rows()[0].ends_with("32.0 MiB/s  in 2s")) << screen.rows()[0];
  EXPECT_TRUE(screen.rows()[1].starts_with("b.iso ")) << screen.rows()[1];
  EXPECT_TRUE(screen.rows()[1].ends_with("failed")) << screen.rows()[1];
  EXPECT_TRUE(screen.rows()[2].starts_with("total 1/2 ")) << screen.rows()[2];
  EXPECT_TRUE(screen.rows()[2].ends_with("failed")) << screen.rows()[2];
  EXPECT_EQ(screen.cursor_row(), 3u);
  EXPECT_EQ(screen.cursor_col(), 0u);
  // Nothing is drawn after finish().
  const std::size_t writes = h.writes.size();
  h.advance(1s);
  h.display->tick();
  h.display->finish();
  EXPECT_EQ(h.writes.size(), writes);
}

TEST(BarDisplay, FinishEndsTransfersByTheirLastReport) {
  Harness h(ProgressMode::bar);
  std::size_t complete = h.display->add("complete");
  std::size_t cut = h.display->add("cut");
  DownloadProgress last = progress(100, 100, 10);
  last.finished = true;
  h.display->update(complete, last);
  h.display->update(cut, progress(50, 100, 10));
  h.advance(10s);
  h.display->finish();
  ScreenModel screen = h.screen();
  ASSERT_EQ(screen.rows().size(), 3u);
  EXPECT_TRUE(screen.rows()[0].ends_with("in 10s")) << screen.rows()[0];
  EXPECT_TRUE(screen.rows()[1].ends_with("failed")) << screen.rows()[1];
}

TEST(BarDisplay, SingleTransferHasNoTotalLine) {
  Harness h(ProgressMode::bar);
  std::size_t a = h.display->add("a");
  DownloadProgress last = progress(100, 100, 10);
  last.finished = true;
  h.display->update(a, last);
  h.display->tick();
  h.display->end(a, true);
  h.display->finish();
  ScreenModel screen = h.screen();
  ASSERT_EQ(screen.rows().size(), 1u);
  EXPECT_TRUE(screen.rows()[0].starts_with("a ")) << screen.rows()[0];
  EXPECT_EQ(screen.cursor_row(), 1u);
  EXPECT_EQ(h.output.back(), '\n');
}

TEST(BarDisplay, PrintPutsMessagesAboveTheBars) {
  Harness h(ProgressMode::bar);
  std::size_t a = h.display->add("a");
  h.display->update(a, progress(1, 100, 1));
  h.display->tick();
  h.display->print("sluice: b: connection refused\nsecond line");
  ScreenModel screen = h.screen();
  ASSERT_EQ(screen.rows().size(), 3u);
  EXPECT_EQ(screen.rows()[0], "sluice: b: connection refused");
  EXPECT_EQ(screen.rows()[1], "second line");
  EXPECT_TRUE(screen.rows()[2].starts_with("a ")) << screen.rows()[2];
}

TEST(BarDisplay, FollowsTheTerminalWidthAndShortensNames) {
  Harness h(ProgressMode::bar, 40);
  std::size_t a = h.display->add("x");
  h.display->update(
      a, progress(3 * kMiB, 64 * kMiB, kMiB, "dir/a-very-long-name-for-a-narrow-terminal.tar.gz"));
  h.display->tick();
  ScreenModel screen = h.screen();
  ASSERT_EQ(screen.rows().size(), 1u);
  EXPECT_LE(screen.widest_row(), 39u);
  EXPECT_TRUE(contains(screen.rows()[0], "...")) << screen.rows()[0];
  EXPECT_TRUE(contains(screen.rows()[0], "[")) << screen.rows()[0];
}

TEST(BarDisplay, MoreTransfersThanRowsAreCounted) {
  Harness h(ProgressMode::bar, 100, 5);
  for (int i = 0; i < 6; ++i) {
    std::size_t index = h.display->add("t" + std::to_string(i));
    h.display->update(index, progress(1, 100, 1));
  }
  h.display->tick();
  h.advance(200ms);
  h.display->update(0, progress(2, 100, 1));
  h.display->tick();
  ScreenModel screen = h.screen();
  ASSERT_EQ(screen.rows().size(), 4u);  // rows - 1: cursor-up never leaves the screen
  EXPECT_TRUE(screen.rows()[0].starts_with("t0 ")) << screen.rows()[0];
  EXPECT_TRUE(screen.rows()[1].starts_with("t1 ")) << screen.rows()[1];
  EXPECT_EQ(screen.rows()[2], "... 4 more running");
  EXPECT_TRUE(screen.rows()[3].starts_with("total 0/6 ")) << screen.rows()[3];
}

TEST(BarDisplay, HostileNamesReachTheTerminalSanitized) {
  Harness h(ProgressMode::bar);
  std::size_t a = h.display->add("x");
  h.display->update(a, progress(1, 100, 1, "evil\x1b]0;title\x07\x1b[2J.bin"));
  h.display->tick();
  h.display->finish();
  ScreenModel screen = h.screen();
  EXPECT_TRUE(screen.unknown_sequences().empty());
  ASSERT_EQ(screen.rows().size(), 1u);
  EXPECT_TRUE(screen.rows()[0].starts_with("evil?]0")) << screen.rows()[0];
  EXPECT_EQ(h.output.find('\x07'), std::string::npos);
  EXPECT_EQ(h.output.find("\x1b]"), std::string::npos);
  EXPECT_EQ(h.output.find("\x1b[2J"), std::string::npos);
}

// ---- line and none modes ---------------------------------------------------------

TEST(LineDisplay, PrintsPlainLinesEverySecond) {
  Harness h(ProgressMode::line);
  std::size_t a = h.display->add("a.iso");
  h.display->update(a, progress(12 * kMiB + kMiB / 2, 64 * kMiB, 8.3 * kMiB));
  h.display->tick();
  EXPECT_EQ(h.output, "a.iso 12.5 MiB / 64.0 MiB 19% 8.3 MiB/s ETA 6s\n");
  h.advance(500ms);
  h.display->tick();
  EXPECT_EQ(h.writes.size(), 1u);
  h.advance(500ms);
  h.display->tick();
  EXPECT_EQ(h.writes.size(), 2u);
}

TEST(LineDisplay, EndPrintsTheFinalLineAtOnceAndFinishTheTotal) {
  Harness h(ProgressMode::line);
  std::size_t a = h.display->add("a.iso");
  std::size_t b = h.display->add("b.iso");
  h.display->update(a, progress(64 * kMiB, 64 * kMiB, kMiB));
  h.display->update(b, progress(kMiB, std::nullopt, kMiB));
  h.advance(4s);
  h.display->end(a, true);
  EXPECT_EQ(h.output, "a.iso 64.0 MiB / 64.0 MiB 100% 16.0 MiB/s done in 4s\n");
  h.display->print("a note");
  h.display->end(b, true);
  h.display->finish();
  EXPECT_EQ(h.output,
            "a.iso 64.0 MiB / 64.0 MiB 100% 16.0 MiB/s done in 4s\n"
            "a note\n"
            "b.iso 1.0 MiB 256.0 KiB/s done in 4s\n"
            "total 2/2 65.0 MiB 16.2 MiB/s done in 4s\n");
}

TEST(NoneDisplay, PrintsOnlyMessages) {
  Harness h(ProgressMode::none);
  std::size_t a = h.display->add("a");
  h.display->update(a, progress(1, 100, 1));
  h.display->tick();
  h.display->start();
  h.display->end(a, true);
  h.display->print("only this");
  h.display->finish();
  EXPECT_EQ(h.output, "only this\n");
}

// Download threads report while the render thread draws; the last frame still holds
// every transfer's final line and leaves a clean line.
TEST(BarDisplay, ThreadsReportWhileTheRenderThreadDraws) {
  std::string output;
  ProgressDisplayOptions options;
  options.mode = ProgressMode::bar;
  options.columns = 120;
  options.rows = 40;
  options.bar_interval = 1ms;
  options.sink = [&output](std::string_view text) { output.append(text); };
  ProgressDisplay display(std::move(options));
  constexpr int kThreads = 4;
  std::vector<std::size_t> indexes;
  for (int i = 0; i < kThreads; ++i) indexes.push_back(display.add("t" + std::to_string(i)));
  display.start();
  std::vector<std::thread> threads;
  for (int i = 0; i < kThreads; ++i) {
    threads.emplace_back([&display, index = indexes[i]] {
      for (std::uint64_t done = 0; done <= 20000; done += 1) {
        DownloadProgress p;
        p.bytes_done = done;
        p.total = 20000;
        p.finished = done == 20000;
        display.update(index, p);
      }
      display.end(index, true);
    });
  }
  for (std::thread& thread : threads) thread.join();
  display.finish();
  ScreenModel screen;
  screen.feed(output);
  EXPECT_TRUE(screen.unknown_sequences().empty());
  ASSERT_EQ(screen.rows().size(), static_cast<std::size_t>(kThreads + 1));
  for (const std::string& row : screen.rows()) EXPECT_TRUE(contains(row, "100%")) << row;
  EXPECT_EQ(output.back(), '\n');
  EXPECT_EQ(screen.cursor_col(), 0u);
}

}  // namespace
}  // namespace sluice::cli
