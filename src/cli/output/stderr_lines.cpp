#include "cli/output/stderr_lines.hpp"

#include <cstdio>

#include "cli/output/progress.hpp"

namespace sluice::cli {

void StderrLines::write(std::string_view text) {
  std::lock_guard lock(mu_);
  if (display_ != nullptr) {
    display_->print(text);
  } else {
    std::fwrite(text.data(), 1, text.size(), stderr);
  }
}

void StderrLines::attach(ProgressDisplay& display) {
  std::lock_guard lock(mu_);
  display_ = &display;
}

void StderrLines::detach(const ProgressDisplay& display) {
  std::lock_guard lock(mu_);
  if (display_ == &display) display_ = nullptr;
}

StderrLines& stderr_lines() {
  static StderrLines lines;
  return lines;
}

}  // namespace sluice::cli
