#include "core/worker_pool.hpp"

#include <pthread.h>

namespace sluice {

WorkerPool::WorkerPool(int threads) {
  if (threads < 1) threads = 1;
  for (int i = 0; i < threads; ++i) {
    threads_.emplace_back([this] {
      // Visible in top and gdb; the failure-injection tests leave threads of
      // this name alone and target only the HTTP thread.
      pthread_setname_np(pthread_self(), "sluice-pool");
      work();
    });
  }
}

WorkerPool::~WorkerPool() {
  {
    std::lock_guard lock(mu_);
    stopping_ = true;
  }
  ready_.notify_all();
  for (auto& thread : threads_) thread.join();
}

void WorkerPool::submit(Job job) {
  {
    std::lock_guard lock(mu_);
    jobs_.push_back(std::move(job));
  }
  ready_.notify_one();
}

void WorkerPool::work() {
  for (;;) {
    Job job;
    {
      std::unique_lock lock(mu_);
      ready_.wait(lock, [this] { return stopping_ || !jobs_.empty(); });
      if (jobs_.empty()) return;  // stopping, and nothing left to run
      job = std::move(jobs_.front());
      jobs_.pop_front();
    }
    job();
  }
}

}  // namespace sluice
