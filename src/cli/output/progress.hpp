#pragma once
// The `sluice` progress display: download threads report DownloadProgress
// snapshots, and the display draws them on stderr in one of three modes.
//   bar   stderr is a terminal: one live line per running transfer plus a total
//         (when there is more than one transfer), redrawn in place at most 5 times a
//         second; a transfer that ended leaves its final line above the live ones.
//   line  periodic plain lines (every second), one per running transfer, and a final
//         line per transfer when it ends: for logs and pipes (--progress=line).
//   none  nothing but the messages passed to print().
// Anything else written to stderr while bars are live would be overwritten: print
// messages through print(), which puts them above the bars.
//
// Use (main's thread owns the display):
//   ProgressDisplay display({.mode = ProgressMode::bar});
//   std::size_t i = display.add(url);              // before or while threads run
//   options.on_progress = [&display, i](const DownloadProgress& p) { display.update(i, p); };
//   display.start();                               // the render thread
//   ... threads call download(); each then calls display.end(i, result.ok()) ...
//   display.finish();                              // final redraw, clean new line
//
// Ownership: owned by main's thread; add(), update(), end() and print() are safe
// from any thread (state under state_mu_, drawing under draw_mu_); start() and
// finish() are for the owner. The render thread lives between start() and finish().

#include <chrono>
#include <condition_variable>
#include <cstddef>
#include <functional>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

#include "cli/output/progress_format.hpp"
#include "sluice/download.hpp"

namespace sluice::cli {

enum class ProgressMode { none, line, bar };

/// "bar", "line", "none" (what --progress=MODE takes), or nothing.
std::optional<ProgressMode> parse_progress_mode(std::string_view text);

/// bar when stderr is a terminal, none otherwise: progress never lands in a log
/// unless asked for.
ProgressMode default_progress_mode(bool stderr_is_terminal);

struct ProgressDisplayOptions {
  ProgressMode mode = ProgressMode::none;
  /// Where the text goes: everything a terminal would receive, escape codes
  /// included. Empty: stderr (fd 2). Called under the drawing lock, never
  /// concurrently.
  std::function<void(std::string_view)> sink;
  /// Terminal size for bar mode; 0 asks stderr each frame (TIOCGWINSZ, so a resized
  /// window is followed), falling back to 80 x 24.
  std::size_t columns = 0;
  std::size_t rows = 0;
  /// Frame intervals: bar mode redraws at most this often, line mode prints this often.
  std::chrono::milliseconds bar_interval{200};
  std::chrono::milliseconds line_interval{1000};
  /// The clock for intervals, elapsed times and average speeds; tests pass a manual one.
  std::function<std::chrono::steady_clock::time_point()> clock;
};

class ProgressDisplay {
 public:
  explicit ProgressDisplay(ProgressDisplayOptions options);
  /// Calls finish().
  ~ProgressDisplay();
  ProgressDisplay(const ProgressDisplay&) = delete;
  ProgressDisplay& operator=(const ProgressDisplay&) = delete;

  /// A new transfer, shown as `label` (say its URL) until its progress names a path,
  /// then as the path's file name. Call it when the transfer begins: its elapsed time
  /// and average speed count from here. Not drawn before its first update(). Returns
  /// the index update() and end() take.
  std::size_t add(std::string label);
  /// The latest snapshot of transfer `index` (DownloadOptions::on_progress). Cheap: it
  /// copies the snapshot under a lock and draws nothing. Ignored after end().
  void update(std::size_t index, const DownloadProgress& progress);
  /// The transfer ended: its line becomes final ("in 5s", or "failed" when !ok) and,
  /// in bar mode, moves above the live lines at the next frame; line mode prints it now.
  void end(std::size_t index, bool ok);
  /// Prints `message` (a line or several, no trailing newline needed) above the live
  /// bars, or as plain lines in the other modes. In every mode, including none.
  void print(std::string_view message);

  /// Starts the render thread, which calls tick() every interval. Without it the
  /// owner may call tick() itself.
  void start();
  /// Draws a frame if the mode's interval passed since the last one.
  void tick();
  /// Stops the render thread and draws the last frame: transfers not ended are ended
  /// (failed unless their last report was finished and complete), every final line
  /// and the total (when there was more than one transfer) are printed, and the
  /// cursor is left at the start of a clean line with no escape code after the last
  /// newline. Idempotent; nothing is drawn afterwards.
  void finish();

 private:
  struct Transfer;  // progress.cpp
  struct Frame;     // progress.cpp: what one draw prints, taken under state_mu_
  enum class FrameKind { periodic, finals_only, last };

  using TimePoint = std::chrono::steady_clock::time_point;

  TimePoint now() const;
  std::chrono::milliseconds interval() const;
  void render_loop();
  void draw(FrameKind kind, std::string_view message);
  Frame take_frame(FrameKind kind);
  static ProgressLine line_for(const Transfer& transfer, TimePoint now);
  ProgressLine total_for(TimePoint now, bool last) const;
  std::string bar_text(const Frame& frame, bool last);
  std::vector<std::string> live_rows(const Frame& frame, const BarLayout& layout,
                                     std::size_t rows) const;
  std::string plain_text(const Frame& frame) const;
  void write(std::string_view text);

  ProgressDisplayOptions options_;
  TimePoint started_at_;

  std::mutex state_mu_;  // guards transfers_
  std::vector<Transfer> transfers_;

  std::mutex draw_mu_;          // serializes drawing and writing; guards the fields below
  std::size_t live_lines_ = 0;  // bar mode: rows of live lines above the cursor
  std::string last_live_;       // bar mode: the live lines last drawn
  unsigned phase_ = 0;          // bar mode: step of the bouncing bars
  std::optional<TimePoint> last_frame_;
  bool drew_last_ = false;  // finish() drew its frame: nothing is live any more

  std::mutex thread_mu_;  // guards stopping_; with wake_
  std::condition_variable wake_;
  bool stopping_ = false;
  std::thread render_thread_;
};

}  // namespace sluice::cli
