#pragma once
// WorkerPool: a few threads that run jobs that may block (file reads and writes,
// getaddrinfo) so the HTTP thread never does.
// Thread-safe: submit() from any thread. The destructor runs the jobs already
// submitted, then joins.

#include <condition_variable>
#include <deque>
#include <functional>
#include <mutex>
#include <thread>
#include <vector>

namespace sluice {

class WorkerPool {
 public:
  using Job = std::function<void()>;
  explicit WorkerPool(int threads);
  ~WorkerPool();
  WorkerPool(const WorkerPool&) = delete;
  WorkerPool& operator=(const WorkerPool&) = delete;

  void submit(Job job);

 private:
  void work();
  std::mutex mu_;
  std::condition_variable ready_;
  std::deque<Job> jobs_;   // guarded by mu_
  bool stopping_ = false;  // guarded by mu_
  std::vector<std::thread> threads_;
};

}  // namespace sluice
