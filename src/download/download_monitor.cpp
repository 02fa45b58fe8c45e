#include "download/download_monitor.hpp"

#include <algorithm>

#include "core/time_source.hpp"

namespace sluice {
namespace {

constexpr std::chrono::seconds kSpeedWindow{3};
constexpr std::chrono::seconds kSaveEvery{1};

}  // namespace

DownloadMonitor::DownloadMonitor(const DownloadOptions& options)
    : options_(options), next_report_(steady_now()), next_save_(steady_now() + kSaveEvery) {}

void DownloadMonitor::watch(const std::vector<std::unique_ptr<RangeSlot>>* slots,
                            ControlFile control, std::string control_path) {
  slots_ = slots;
  control_ = std::move(control);
  control_path_ = std::move(control_path);
}

// Bytes of the file on disk: everything before the first range was there already
// (a resumed file), then each range's completed writes.
std::uint64_t DownloadMonitor::bytes_done() const {
  if (!slots_ || slots_->empty()) return 0;
  std::uint64_t done = (*slots_)[0]->start;
  for (const auto& slot : *slots_) done += slot->done.load(std::memory_order_acquire);
  return done;
}

void DownloadMonitor::tick(std::atomic<bool>* stop_on_error) {
  const auto now = steady_now();
  if (options_.on_progress && now >= next_report_) {
    report(now);
    next_report_ = now + options_.progress_interval;
  }
  if (slots_ && now >= next_save_) {
    next_save_ = now + kSaveEvery;
    if (auto saved = save_control(); !saved && stop_on_error) stop_on_error->store(true);
  }
}

Result<void> DownloadMonitor::save_control() {
  if (!slots_ || control_path_.empty()) return {};  // a stream output has no control file
  auto saved = sluice::save_control(control_path_, snapshot());
  if (!saved && !save_error_) save_error_ = saved.error();
  return saved;
}

ControlFile DownloadMonitor::snapshot() const {
  ControlFile control = control_;
  control.ranges.clear();
  for (const auto& slot : *slots_) control.ranges.push_back(slot->spec());
  // A stolen half is appended after every slot, not after its victim: the file lists
  // ranges in file order.
  std::sort(control.ranges.begin(), control.ranges.end(),
            [](const RangeSpec& a, const RangeSpec& b) { return a.start < b.start; });
  control.ranges = merge_complete_ranges(std::move(control.ranges));
  return control;
}

void DownloadMonitor::report(Clock::time_point now) {
  update(now);
  options_.on_progress(progress_);
}

void DownloadMonitor::update(Clock::time_point now) {
  const std::uint64_t done = bytes_done();
  progress_.bytes_done = done - std::min(done, origin_);
  progress_.active_ranges = 0;
  if (slots_) {
    for (const auto& slot : *slots_) {
      if (slot->active.load(std::memory_order_acquire)) ++progress_.active_ranges;
    }
  }
  if (!window_.empty() && window_.back().second > progress_.bytes_done) window_.clear();
  window_.emplace_back(now, progress_.bytes_done);
  while (window_.size() > 2 && now - window_.front().first > kSpeedWindow) window_.pop_front();
  const std::chrono::duration<double> span = now - window_.front().first;
  progress_.bytes_per_second =
      span.count() > 0
          ? static_cast<double>(progress_.bytes_done - window_.front().second) / span.count()
          : 0.0;
}

void DownloadMonitor::finish(std::optional<std::uint64_t> bytes_done) {
  if (!options_.on_progress) return;
  update(steady_now());
  progress_.finished = true;
  progress_.active_ranges = 0;
  if (bytes_done) progress_.bytes_done = *bytes_done;
  options_.on_progress(progress_);
}

}  // namespace sluice
