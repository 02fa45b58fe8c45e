#include "cli/output/fetch_meter.hpp"

#include <chrono>
#include <cstdio>
#include <utility>

#include "cli/downloads.hpp"
#include "cli/output/stderr_lines.hpp"

namespace sluice::cli {

FetchMeter::FetchMeter(const CliOptions& options, const std::string& path)
    : mode_(path.empty() || path == "-" ? ProgressMode::none : progress_mode_for(options)),
      path_(path) {}

void FetchMeter::body_started(std::uint64_t done, std::optional<std::uint64_t> total) {
  if (mode_ == ProgressMode::none) return;
  progress_.path = path_;
  progress_.bytes_done = done;
  progress_.total = total;
  if (!display_) {
    ProgressDisplayOptions display_options;
    display_options.mode = mode_;
    display_.emplace(std::move(display_options));
    slot_ = display_->add(path_);
    started_ = cli_now();
    display_->start();
    attachment_.emplace(*display_);  // -v lines from now on go above the bar
  }
  display_->update(slot_, progress_);
}

void FetchMeter::wrote(std::uint64_t done) {
  if (!display_) return;
  progress_.bytes_done = done;
  // The average since the body began: what the live line shows as its speed.
  const double seconds = std::chrono::duration<double>(cli_now() - started_).count();
  progress_.bytes_per_second = seconds > 0 ? static_cast<double>(done) / seconds : 0;
  display_->update(slot_, progress_);
}

void FetchMeter::print(std::string_view text) { stderr_lines().write(text); }

void FetchMeter::end(bool ok) {
  if (!display_) return;
  progress_.finished = true;
  display_->update(slot_, progress_);
  display_->end(slot_, ok);
  display_->finish();
  attachment_.reset();
  display_.reset();
}

}  // namespace sluice::cli
