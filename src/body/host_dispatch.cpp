#include "body/host_dispatch.hpp"

#include <sys/eventfd.h>
#include <unistd.h>

#include <cerrno>
#include <cstdint>
#include <cstring>
#include <iterator>
#include <memory>
#include <string>

namespace sluice {

Result<std::shared_ptr<HostDispatch>> HostDispatch::create() {
  const int fd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
  if (fd < 0) {
    return Error(ErrorCode::io_failed,
                 std::string("host dispatch: cannot make an eventfd: ") + std::strerror(errno));
  }
  return std::shared_ptr<HostDispatch>(new HostDispatch(fd));
}

HostDispatch::~HostDispatch() { ::close(fd_); }

void HostDispatch::make_readable() noexcept {
  const std::uint64_t one = 1;
  // Cannot fail but for a counter at its maximum, which one write per empty->full
  // turn never reaches (run() reads it back to 0 each time).
  [[maybe_unused]] const ssize_t rv = ::write(fd_, &one, sizeof one);
}

void HostDispatch::post(Task task) {
  {
    std::lock_guard lock(mu_);
    if (!closed_) {
      const bool was_empty = tasks_.empty();
      tasks_.push_back(std::move(task));
      if (was_empty) make_readable();
      return;
    }
  }
  task();
}

void HostDispatch::close() {
  std::lock_guard lock(mu_);
  closed_ = true;
}

std::size_t HostDispatch::run() {
  std::vector<Task> batch;
  {
    std::lock_guard lock(mu_);
    if (tasks_.empty()) return 0;
    batch.swap(tasks_);
    std::uint64_t count = 0;
    [[maybe_unused]] const ssize_t rv = ::read(fd_, &count, sizeof count);  // now unreadable
  }
  for (std::size_t i = 0; i < batch.size(); ++i) {
    try {
      batch[i]();
    } catch (...) {
      // The host's exception goes back to the host; the tasks after it stay queued,
      // ahead of any posted since, for the next run().
      std::lock_guard lock(mu_);
      const bool was_empty = tasks_.empty();
      tasks_.insert(tasks_.begin(), std::make_move_iterator(batch.begin() + i + 1),
                    std::make_move_iterator(batch.end()));
      if (was_empty && !tasks_.empty()) make_readable();
      throw;
    }
  }
  return batch.size();
}

}  // namespace sluice
