#include "client/http_poster.hpp"

#include <utility>

namespace sluice {

bool HttpPoster::post(EventLoop::Task task) {
  std::lock_guard lock(mu_);
  if (loop_ == nullptr) return false;
  loop_->post(std::move(task));
  return true;
}

void HttpPoster::close() {
  std::lock_guard lock(mu_);
  loop_ = nullptr;
}

}  // namespace sluice
