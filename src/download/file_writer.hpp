#pragma once
// FileWriter: positional writes of owned chunks on the file pool, so that no disk
// write blocks the HTTP thread (downloads write their ranges through it).
//
// Ownership: owned by whoever writes one file (a download); it must outlive every
// job it submitted, and the fd it is given stays open (owned by the caller) until
// every job has completed. write_at() from any thread; the jobs run on the pool.
// Each chunk is owned by its job from write_at() until the job frees it or hands
// it back in its Completion (the release rule, docs/architecture.md).

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>

#include "sluice/error.hpp"

namespace sluice {

class WorkerPool;

class FileWriter {
 public:
  /// What one job did. `returned_chunk` is the job's chunk, cleared with its
  /// capacity kept for reuse, or a default (empty) string owning no heap block when
  /// the pool thread freed it.
  struct Completion {
    std::uint64_t offset = 0;
    std::size_t length = 0;
    Result<void> result;
    std::string returned_chunk;
  };
  /// Called on a pool thread when a job ends. It must only hand the completion off
  /// (queue it, post it to its owner's thread): it runs between other file jobs.
  using Done = std::function<void(Completion)>;

  /// `release_threshold`: ClientOptions::release_threshold (see releases_off_owner).
  FileWriter(WorkerPool& pool, int fd, std::size_t release_threshold);
  FileWriter(const FileWriter&) = delete;
  FileWriter& operator=(const FileWriter&) = delete;

  /// Submits one job that writes all of `chunk` at `offset`.
  void write_at(std::string chunk, std::uint64_t offset, Done done);

  /// Chunk bytes (capacity) owned by jobs right now: submitted, not yet freed or
  /// handed back.
  std::size_t held_bytes() const noexcept { return held_bytes_.load(std::memory_order_acquire); }

 private:
  Completion run(std::string chunk, std::uint64_t offset);

  WorkerPool& pool_;
  int fd_;
  std::size_t release_threshold_;
  std::atomic<std::size_t> held_bytes_{0};
};

}  // namespace sluice
