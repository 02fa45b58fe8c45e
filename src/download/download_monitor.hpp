#pragma once
// DownloadMonitor: the calling thread's view of a running download. It calls
// on_progress every progress_interval (speed over a sliding window of a few
// seconds) and saves the control file every second while the ranges run and once
// more when they stop, from the ranges' completed writes only.
// Ownership: owned by download() on the calling thread; every member function runs
// there. It reads the range slots' atomics, which range threads write.

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdint>
#include <deque>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "download/download_fetch.hpp"
#include "download/file/download_control.hpp"
#include "sluice/download.hpp"

namespace sluice {

class DownloadMonitor {
 public:
  using Clock = std::chrono::steady_clock;
  explicit DownloadMonitor(const DownloadOptions& options);

  void set_path(std::string path) { progress_.path = std::move(path); }
  /// The resource's byte that is the file's byte 0 (a range download): progress
  /// counts the file's bytes. Set before set_total.
  void set_origin(std::uint64_t origin) { origin_ = origin; }
  /// `total`: the resource's byte where the file ends.
  void set_total(std::optional<std::uint64_t> total) {
    progress_.total = total ? std::optional(*total - std::min(*total, origin_)) : std::nullopt;
  }
  void set_resumed_from(std::uint64_t bytes) { progress_.resumed_from = bytes; }
  /// From now on progress counts these ranges, and the control file is saved from
  /// them. `control` gives the fields that do not change (URL, size, validator).
  void watch(const std::vector<std::unique_ptr<RangeSlot>>* slots, ControlFile control,
             std::string control_path);
  /// Reports and saves what is due; cheap when nothing is. A save that fails stores
  /// its error (see save_error()) and sets `stop_on_error` when given.
  void tick(std::atomic<bool>* stop_on_error = nullptr);
  /// Saves the control file now.
  Result<void> save_control();
  /// The first failed save, if any.
  const std::optional<Error>& save_error() const { return save_error_; }
  /// The last report, finished = true. `bytes_done` overrides the count (a file
  /// found complete).
  void finish(std::optional<std::uint64_t> bytes_done = std::nullopt);
  std::uint64_t bytes_done() const;

 private:
  void report(Clock::time_point now);
  void update(Clock::time_point now);
  ControlFile snapshot() const;

  const DownloadOptions& options_;
  DownloadProgress progress_;
  const std::vector<std::unique_ptr<RangeSlot>>* slots_ = nullptr;
  ControlFile control_;
  std::string control_path_;
  std::uint64_t origin_ = 0;
  std::deque<std::pair<Clock::time_point, std::uint64_t>> window_;
  Clock::time_point next_report_;
  Clock::time_point next_save_;
  std::optional<Error> save_error_;
};

}  // namespace sluice
