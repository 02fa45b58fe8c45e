// FileWriter: positional writes on the file pool, and the release rule for the
// chunks its jobs own (large ones freed on the pool thread, small ones handed back).
#include "download/file_writer.hpp"

#include <gtest/gtest.h>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <condition_variable>
#include <cstdint>
#include <cstdlib>
#include <deque>
#include <mutex>
#include <string>
#include <vector>

#include "io/memory_rules.hpp"
#include "io/worker_pool.hpp"

namespace sluice {
namespace {

// A real file in the temp dir, removed at the end of the test.
class TempFile {
 public:
  TempFile() {
    const char* dir = std::getenv("TMPDIR");
    path_ = std::string(dir != nullptr && *dir != '\0' ? dir : "/tmp") + "/sluice-fw-XXXXXX";
    fd_ = ::mkstemp(path_.data());
  }
  ~TempFile() {
    if (fd_ >= 0) ::close(fd_);
    ::unlink(path_.c_str());
  }
  int fd() const { return fd_; }
  const std::string& path() const { return path_; }
  std::string contents() const {
    std::string all;
    char buffer[4096];
    for (off_t at = 0;;) {
      ssize_t n = ::pread(fd_, buffer, sizeof buffer, at);
      if (n <= 0) return all;
      all.append(buffer, static_cast<std::size_t>(n));
      at += n;
    }
  }

 private:
  std::string path_;
  int fd_ = -1;
};

// Stands in for the owner's thread: completions are queued by the pool thread and
// collected here, as the Done contract asks.
class Completions {
 public:
  FileWriter::Done done() {
    return [this](FileWriter::Completion completion) {
      std::lock_guard lock(mu_);
      queue_.push_back(std::move(completion));
      arrived_.notify_all();
    };
  }
  std::vector<FileWriter::Completion> wait_for(std::size_t count) {
    std::unique_lock lock(mu_);
    arrived_.wait(lock, [&] { return queue_.size() >= count; });
    std::vector<FileWriter::Completion> all(std::make_move_iterator(queue_.begin()),
                                            std::make_move_iterator(queue_.end()));
    queue_.clear();
    return all;
  }

 private:
  std::mutex mu_;
  std::condition_variable arrived_;
  std::deque<FileWriter::Completion> queue_;
};

std::string chunk_of(std::size_t size, char fill) { return std::string(size, fill); }

// The capacity of a string that owns no heap block (its small-string buffer only):
// what a chunk the pool thread freed comes back as.
const std::size_t kNoBlock = std::string().capacity();

TEST(FileWriterTest, WritesEveryChunkAtItsOffsetWhateverTheOrder) {
  TempFile file;
  ASSERT_GE(file.fd(), 0);
  WorkerPool pool(2);
  FileWriter writer(pool, file.fd(), kDefaultReleaseThreshold);
  Completions completions;
  constexpr std::size_t kChunk = 10000;
  std::string expected;
  for (char fill : {'a', 'b', 'c', 'd', 'e'}) expected += chunk_of(kChunk, fill);
  // Last range first, so the file grows with holes that later jobs fill.
  for (std::size_t index : {4u, 1u, 3u, 0u, 2u}) {
    writer.write_at(chunk_of(kChunk, static_cast<char>('a' + index)), index * kChunk,
                    completions.done());
  }
  std::vector<FileWriter::Completion> done = completions.wait_for(5);
  for (const FileWriter::Completion& completion : done) {
    EXPECT_TRUE(completion.result.ok()) << completion.result.error().message();
    EXPECT_EQ(completion.length, kChunk);
    EXPECT_EQ(completion.offset % kChunk, 0u);
  }
  EXPECT_EQ(file.contents(), expected);
}

TEST(FileWriterTest, FreesALargeChunkOnThePoolThreadAndHandsBackASmallOne) {
  TempFile file;
  ASSERT_GE(file.fd(), 0);
  WorkerPool pool(1);
  FileWriter writer(pool, file.fd(), kDefaultReleaseThreshold);
  Completions completions;
  writer.write_at(chunk_of(kDefaultReleaseThreshold + 1, 'L'), 0, completions.done());
  std::vector<FileWriter::Completion> large = completions.wait_for(1);
  ASSERT_TRUE(large[0].result.ok());
  EXPECT_EQ(large[0].length, kDefaultReleaseThreshold + 1);
  EXPECT_TRUE(large[0].returned_chunk.empty());
  EXPECT_EQ(large[0].returned_chunk.capacity(), kNoBlock);

  std::string small = chunk_of(64 * 1024, 's');
  const std::size_t small_capacity = small.capacity();
  writer.write_at(std::move(small), kDefaultReleaseThreshold + 1, completions.done());
  std::vector<FileWriter::Completion> back = completions.wait_for(1);
  ASSERT_TRUE(back[0].result.ok());
  EXPECT_TRUE(back[0].returned_chunk.empty());
  EXPECT_EQ(back[0].returned_chunk.capacity(), small_capacity);
}

TEST(FileWriterTest, ThresholdZeroFreesEveryChunkAndMaximumFreesNone) {
  TempFile file;
  ASSERT_GE(file.fd(), 0);
  WorkerPool pool(1);
  Completions completions;
  FileWriter frees_all(pool, file.fd(), 0);
  frees_all.write_at(chunk_of(100, 'z'), 0, completions.done());
  std::vector<FileWriter::Completion> tiny = completions.wait_for(1);
  ASSERT_TRUE(tiny[0].result.ok());
  EXPECT_EQ(tiny[0].returned_chunk.capacity(), kNoBlock);

  FileWriter frees_none(pool, file.fd(), SIZE_MAX);
  std::string huge = chunk_of(4 * 1024 * 1024, 'h');
  const std::size_t huge_capacity = huge.capacity();
  frees_none.write_at(std::move(huge), 100, completions.done());
  std::vector<FileWriter::Completion> kept = completions.wait_for(1);
  ASSERT_TRUE(kept[0].result.ok());
  EXPECT_TRUE(kept[0].returned_chunk.empty());
  EXPECT_EQ(kept[0].returned_chunk.capacity(), huge_capacity);
}

TEST(FileWriterTest, AWriteToAReadOnlyDescriptorIsAnIoErrorThatNamesIt) {
  TempFile file;
  ASSERT_GE(file.fd(), 0);
  int read_only = ::open(file.path().c_str(), O_RDONLY);
  ASSERT_GE(read_only, 0);
  WorkerPool pool(1);
  FileWriter writer(pool, read_only, kDefaultReleaseThreshold);
  Completions completions;
  writer.write_at(chunk_of(4096, 'x'), 8192, completions.done());
  std::vector<FileWriter::Completion> done = completions.wait_for(1);
  ::close(read_only);
  ASSERT_FALSE(done[0].result.ok());
  EXPECT_EQ(done[0].result.error().category(), ErrorCategory::io);
  EXPECT_EQ(done[0].result.error().message(),
            "file: write of 4096 bytes at offset 8192 failed: Bad file descriptor");
  EXPECT_EQ(done[0].offset, 8192u);
  EXPECT_EQ(done[0].length, 4096u);
}

TEST(FileWriterTest, HeldBytesCountJobsUntilTheirChunksAreFreedOrHandedBack) {
  TempFile file;
  ASSERT_GE(file.fd(), 0);
  // Declared before the pool so that they outlive its threads.
  Completions completions;
  std::mutex gate_mu;
  std::condition_variable gate_cv;
  bool open = false;
  WorkerPool pool(1);
  FileWriter writer(pool, file.fd(), kDefaultReleaseThreshold);
  // A first job that waits keeps the next two queued, so their bytes are held.
  pool.submit([&] {
    std::unique_lock lock(gate_mu);
    gate_cv.wait(lock, [&] { return open; });
  });
  std::string large = chunk_of(1024 * 1024, 'L');
  std::string small = chunk_of(1000, 's');
  const std::size_t expected = large.capacity() + small.capacity();
  writer.write_at(std::move(large), 0, completions.done());
  writer.write_at(std::move(small), 1024 * 1024, completions.done());
  EXPECT_EQ(writer.held_bytes(), expected);
  {
    std::lock_guard lock(gate_mu);
    open = true;
  }
  gate_cv.notify_all();
  std::vector<FileWriter::Completion> done = completions.wait_for(2);
  for (const FileWriter::Completion& completion : done) EXPECT_TRUE(completion.result.ok());
  EXPECT_EQ(writer.held_bytes(), 0u);
  EXPECT_EQ(file.contents().size(), 1024u * 1024u + 1000u);
}

}  // namespace
}  // namespace sluice
