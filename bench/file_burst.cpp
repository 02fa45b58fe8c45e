// `sluice-bench file-burst`: the release rule for file jobs. The main thread submits
// N positional writes of owned chunks to a file pool of 2 threads and collects the
// completions only after submitting all (an owner busy elsewhere, as a downloader's
// thread is). With the rule each pool thread frees a large chunk right after its
// pwrite; without it every chunk waits in its completion for the owner. Each variant
// runs in a child process of its own so that their peaks are comparable.
// Main thread only (the children run a WorkerPool).

#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <deque>
#include <mutex>
#include <optional>
#include <string>

#include "bench/child_peak.hpp"
#include "bench/release_rule_comparison.hpp"
#include "bench/report.hpp"
#include "bench/rss.hpp"
#include "bench/subcommands.hpp"
#include "download/file_writer.hpp"
#include "io/memory_rules.hpp"
#include "io/worker_pool.hpp"

namespace sluice::bench {
namespace {

constexpr int kFileThreads = 2;

// Completions handed off by the pool threads, collected by the main thread.
// Any thread; guarded by mu_.
class CompletionQueue {
 public:
  FileWriter::Done done() {
    return [this](FileWriter::Completion completion) {
      std::lock_guard lock(mu_);
      queue_.push_back(std::move(completion));
      arrived_.notify_one();
    };
  }
  FileWriter::Completion take() {
    std::unique_lock lock(mu_);
    arrived_.wait(lock, [this] { return !queue_.empty(); });
    FileWriter::Completion completion = std::move(queue_.front());
    queue_.pop_front();
    return completion;
  }

 private:
  std::mutex mu_;
  std::condition_variable arrived_;
  std::deque<FileWriter::Completion> queue_;
};

// A temporary file in $TMPDIR (or /tmp), unlinked at once so that nothing is left
// behind however the child ends; the descriptor keeps it until it is closed.
Result<int> open_scratch_file() {
  const char* dir = std::getenv("TMPDIR");
  std::string path =
      std::string(dir != nullptr && *dir != '\0' ? dir : "/tmp") + "/sluice-bench-file-burst-XXXXXX";
  int fd = ::mkstemp(path.data());
  if (fd < 0) {
    return Error(ErrorCategory::io, "file burst: cannot create a file like " + path + ": " +
                                        std::strerror(errno));
  }
  ::unlink(path.c_str());
  return fd;
}

// Submits every job, then collects every completion; the chunks handed back are
// dropped as collected, as an owner with nothing more to write would.
Result<void> write_burst(FileWriter& writer, CompletionQueue& completions,
                         const BenchOptions& options) {
  const std::string pattern(options.size, 'f');
  for (std::size_t i = 0; i < options.count; ++i) {
    writer.write_at(std::string(pattern), static_cast<std::uint64_t>(i) * options.size,
                    completions.done());
  }
  std::optional<Error> first_error;
  for (std::size_t i = 0; i < options.count; ++i) {
    FileWriter::Completion completion = completions.take();
    if (!completion.result && !first_error) first_error = completion.result.error();
  }
  if (first_error) return *first_error;
  return {};
}

Result<void> check_size(int fd, const BenchOptions& options) {
  struct stat status {};
  if (::fstat(fd, &status) != 0) {
    return Error(ErrorCategory::io, std::string("file burst: fstat: ") + std::strerror(errno));
  }
  std::uint64_t expected = static_cast<std::uint64_t>(options.count) * options.size;
  if (static_cast<std::uint64_t>(status.st_size) != expected) {
    return Error(ErrorCategory::io, "file burst: the file has " +
                                        std::to_string(status.st_size) + " bytes, expected " +
                                        std::to_string(expected));
  }
  return {};
}

// One variant, in its child.
Result<ChildFigures> run_file_jobs(const BenchOptions& options, std::size_t release_threshold) {
  Result<int> fd = open_scratch_file();
  if (!fd) return std::move(fd).error();
  auto start = std::chrono::steady_clock::now();
  Result<void> written = [&]() -> Result<void> {
    CompletionQueue completions;  // outlives the pool's threads
    WorkerPool pool(kFileThreads);
    FileWriter writer(pool, *fd, release_threshold);
    return write_burst(writer, completions, options);
  }();
  std::chrono::duration<double> elapsed = std::chrono::steady_clock::now() - start;
  Result<void> size_ok = written ? check_size(*fd, options) : Result<void>();
  ::close(*fd);
  if (!written) return std::move(written).error();
  if (!size_ok) return std::move(size_ok).error();
  return ChildFigures{{"seconds", elapsed.count()}};
}

Result<ChildReport> run_variant(const BenchOptions& options, std::size_t release_threshold,
                                const char* label) {
  Result<ChildReport> report =
      run_in_child([&] { return run_file_jobs(options, release_threshold); });
  if (report) {
    char note[160];
    std::snprintf(note, sizeof note, "%s: peak %.1f MiB, all jobs done after %.2f s", label,
                  to_mib(report->peak_rss_bytes), report->figure("seconds"));
    print_note(note);
  }
  return report;
}

}  // namespace

int run_file_burst(const BenchOptions& options) {
  print_note("writing " + std::to_string(options.count) + " chunks of " +
             std::to_string(options.size) + " bytes through " + std::to_string(kFileThreads) +
             " file threads");
  auto reports = compare_release_rule(
      "file_burst", options,
      [&options](std::size_t threshold, const char* label) { return run_variant(options, threshold, label); });
  if (!reports) return kExitFailed;
  return kExitOk;
}

}  // namespace sluice::bench
