#pragma once
// HostDispatch: the queue of user callbacks of a Client made with
// ClientOptions::host_dispatch. Such a Client never runs user code on its HTTP
// thread: every callback (a PendingResponse::then, a body's on_data and on_end, a
// BodyWriter's when_writable, the trace) is posted here instead, an eventfd turns
// readable, and the host's own event loop calls Client::dispatch(), which runs them
// on its thread. The libcurl multi_socket and c-ares model: the host owns the loop.
//
// The fd is readable exactly while tasks wait: post() writes it when the queue
// turns non-empty, run() reads it when it takes the queue, both under mu_.
// Thread-safety: post() and close() from any thread; run() from the host's thread
// (one at a time; a task that calls run() again only finds the tasks posted after
// its batch).

#include <cstddef>
#include <functional>
#include <memory>
#include <mutex>
#include <vector>

#include "sluice/error.hpp"

namespace sluice {

class HostDispatch {
 public:
  using Task = std::function<void()>;

  /// Fails when the kernel refuses an eventfd.
  static Result<std::shared_ptr<HostDispatch>> create();
  ~HostDispatch();
  HostDispatch(const HostDispatch&) = delete;
  HostDispatch& operator=(const HostDispatch&) = delete;

  /// Readable while tasks wait; owned here (close it never).
  int fd() const noexcept { return fd_; }
  /// Any thread. Queues `task` for the host's dispatch(); once closed, runs it here
  /// at once instead (nobody will dispatch again), so every callback still runs once.
  void post(Task task);
  /// When the Client goes: from now on post() runs its task on the caller's thread.
  /// What is queued already stays for run().
  void close();
  /// Runs the tasks waiting now, on the calling thread, in the order posted; returns
  /// how many ran. A task that throws is not caught (it is the host's code): the
  /// exception leaves run(), and the tasks after it stay queued for the next run().
  std::size_t run();

 private:
  explicit HostDispatch(int fd) : fd_(fd) {}
  /// Under mu_, when the queue turned non-empty: the fd turns readable.
  void make_readable() noexcept;

  const int fd_;
  std::mutex mu_;
  std::vector<Task> tasks_;  // guarded by mu_
  bool closed_ = false;      // guarded by mu_
};

}  // namespace sluice
