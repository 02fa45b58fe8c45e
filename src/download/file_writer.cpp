#include "download/file_writer.hpp"

#include <cerrno>
#include <system_error>
#include <utility>

#include <unistd.h>

#include "io/memory_rules.hpp"
#include "io/worker_pool.hpp"

namespace sluice {
namespace {

Error write_error(std::size_t length, std::uint64_t offset, const std::string& why) {
  return Error(ErrorCategory::io, "file: write of " + std::to_string(length) +
                                      " bytes at offset " + std::to_string(offset) +
                                      " failed: " + why);
}

// All of `bytes` at `offset`, through short writes and signals.
Result<void> write_all_at(int fd, const std::string& bytes, std::uint64_t offset) {
  std::size_t done = 0;
  while (done < bytes.size()) {
    ssize_t rv = ::pwrite(fd, bytes.data() + done, bytes.size() - done,
                          static_cast<off_t>(offset + done));
    if (rv < 0 && errno == EINTR) continue;
    if (rv < 0) {
      return write_error(bytes.size(), offset,
                         std::error_code(errno, std::generic_category()).message());
    }
    // pwrite never returns 0 for a non-empty buffer on a regular file; if a device
    // does, give up rather than spin.
    if (rv == 0) return write_error(bytes.size(), offset, "the file took no bytes");
    done += static_cast<std::size_t>(rv);
  }
  return {};
}

}  // namespace

FileWriter::FileWriter(WorkerPool& pool, int fd, std::size_t release_threshold)
    : pool_(pool), fd_(fd), release_threshold_(release_threshold) {}

void FileWriter::write_at(std::string chunk, std::uint64_t offset, Done done) {
  held_bytes_.fetch_add(chunk.capacity(), std::memory_order_acq_rel);
  pool_.submit([this, chunk = std::move(chunk), offset, done = std::move(done)]() mutable {
    done(run(std::move(chunk), offset));
  });
}

// Pool thread. The count drops before the completion is handed off, so an owner
// that has collected every completion sees 0.
FileWriter::Completion FileWriter::run(std::string chunk, std::uint64_t offset) {
  Completion completion;
  completion.offset = offset;
  completion.length = chunk.size();
  completion.result = write_all_at(fd_, chunk, offset);
  const std::size_t capacity = chunk.capacity();
  if (releases_off_owner(capacity, release_threshold_)) {
    // The release rule: free the large copy here, now, rather than keep it alive
    // until an owner that may be busy elsewhere gets to the completion.
    std::string().swap(chunk);
  } else {
    chunk.clear();
    completion.returned_chunk = std::move(chunk);
  }
  held_bytes_.fetch_sub(capacity, std::memory_order_acq_rel);
  return completion;
}

}  // namespace sluice
