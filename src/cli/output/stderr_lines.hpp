#pragma once
// StderrLines: the one way text reaches stderr while a progress display may be live.
// Without a display a write goes straight to stderr; while one is attached it goes
// through ProgressDisplay::print, which puts it above the bars. Text written past
// the display would land under the bars and be overwritten by their next redraw
// (the -v trace lines of the HTTP thread, the -v heads of a retry).
// Ownership: one per process (stderr is one); write() from any thread. A display's
// owner attaches it with a StderrAttachment, which ends before the display does.

#include <mutex>
#include <string_view>

namespace sluice::cli {

class ProgressDisplay;

class StderrLines {
 public:
  /// `text` ends with a newline.
  void write(std::string_view text);
  /// From now on writes go through `display`.
  void attach(ProgressDisplay& display);
  /// Straight to stderr again, if `display` is still the one attached.
  void detach(const ProgressDisplay& display);

 private:
  std::mutex mu_;  // held across a write, so attach() waits for one under way
  ProgressDisplay* display_ = nullptr;
};

/// The process's one instance.
StderrLines& stderr_lines();

/// Attaches `display` to stderr_lines() for its own lifetime: declare it after the
/// display, so that it ends first.
class StderrAttachment {
 public:
  explicit StderrAttachment(ProgressDisplay& display) : display_(display) {
    stderr_lines().attach(display);
  }
  ~StderrAttachment() { stderr_lines().detach(display_); }
  StderrAttachment(const StderrAttachment&) = delete;
  StderrAttachment& operator=(const StderrAttachment&) = delete;

 private:
  ProgressDisplay& display_;
};

}  // namespace sluice::cli
