// Request body sources: the release rule for owned bytes, files read on the pool,
// and producer streams with a declared length.
#include "body/request_body.hpp"

#include <gtest/gtest.h>

#include <condition_variable>
#include <cstdio>
#include <deque>
#include <fstream>
#include <mutex>

#include "body/source_queue.hpp"
#include "core/memory_rules.hpp"
#include "core/worker_pool.hpp"

namespace sluice {
namespace {

// Stands in for the HTTP thread: tasks posted from the pool run when drained.
struct FakeHttpThread {
  std::mutex mu;
  std::condition_variable posted;
  std::deque<std::function<void()>> tasks;
  PostToHttpThread poster() {
    return [this](std::function<void()> task) {
      {
        std::lock_guard lock(mu);
        tasks.push_back(std::move(task));
      }
      posted.notify_all();
    };
  }
  /// Runs one posted task, waiting up to `timeout` for one; false when none came.
  bool run_one(std::chrono::milliseconds timeout = std::chrono::milliseconds(0)) {
    std::function<void()> task;
    {
      std::unique_lock lock(mu);
      if (!posted.wait_for(lock, timeout, [this] { return !tasks.empty(); })) return false;
      task = std::move(tasks.front());
      tasks.pop_front();
    }
    task();
    return true;
  }
};

// How long a test waits for the file pool's read to land: only a hang reaches it.
constexpr std::chrono::seconds kPoolDeadline{30};

std::string drain(RequestBodySource& source, FakeHttpThread* http = nullptr) {
  std::string all;
  for (int spins = 0; spins < 100000; ++spins) {
    SourceChunk chunk = source.peek(100000);
    if (chunk.state == SourceChunk::State::end) return all;
    if (chunk.state == SourceChunk::State::failed)
      return "<failed: " + chunk.error->message() + ">";
    if (chunk.state == SourceChunk::State::waiting) {
      // Waiting means a pool read is out: its completion is posted here.
      if (http == nullptr || !http->run_one(kPoolDeadline)) {
        return "<stuck after " + std::to_string(all.size()) + " bytes>";
      }
      continue;
    }
    all.append(reinterpret_cast<const char*>(chunk.bytes.data()), chunk.bytes.size());
    source.consume(chunk.bytes.size());
  }
  return "<stuck>";
}

BodyEnvironment environment(PostToHttpThread post, WorkerPool* pool, std::size_t threshold) {
  BodyEnvironment env;
  env.post = std::move(post);
  env.file_pool = pool;
  env.release_threshold = threshold;
  return env;
}

std::unique_ptr<RequestBodySource> make(RequestBody body, std::size_t threshold,
                                        WorkerPool* pool = nullptr, PostToHttpThread post = {}) {
  auto source = make_body_source(body, environment(std::move(post), pool, threshold));
  EXPECT_TRUE(source.ok());
  return std::move(*source);
}

TEST(RequestBody, LargeOwnedCopyIsFreedWhenItsLastByteIsTaken) {
  const std::string payload(1 << 20, 'x');
  auto source = make(BytesBody{payload}, kDefaultReleaseThreshold);
  EXPECT_GE(source->held_bytes(), payload.size());
  EXPECT_TRUE(drain(*source) == payload);
  EXPECT_EQ(source->held_bytes(), 0u) << "a copy over 512 KiB must go after its last byte";
  EXPECT_FALSE(source->rewind()) << "a released body cannot be sent again";
}

TEST(RequestBody, SmallOwnedCopyIsKeptForReuse) {
  const std::string payload(100 * 1024, 'y');
  auto source = make(BytesBody{payload}, kDefaultReleaseThreshold);
  EXPECT_TRUE(drain(*source) == payload);
  EXPECT_GE(source->held_bytes(), payload.size());
  EXPECT_TRUE(source->rewind());
  EXPECT_TRUE(drain(*source) == payload);
}

TEST(RequestBody, ThresholdZeroReleasesEveryCopy) {
  auto source = make(BytesBody{std::string(100 * 1024, 'z')}, 0);
  drain(*source);
  EXPECT_EQ(source->held_bytes(), 0u);
}

TEST(RequestBody, FileIsReadOnThePoolInPieces) {
  const std::string path = ::testing::TempDir() + "/sluice_body_source.bin";
  std::string payload;
  for (int i = 0; i < 700000; ++i) payload.push_back(static_cast<char>(i * 31));
  { std::ofstream(path, std::ios::binary) << payload; }
  FakeHttpThread http;
  WorkerPool pool(1);
  auto source = make(FileBody{path}, kDefaultReleaseThreshold, &pool, http.poster());
  ASSERT_EQ(source->length(), payload.size());
  const std::string sent = drain(*source, &http);
  EXPECT_EQ(sent.size(), payload.size());
  EXPECT_TRUE(sent == payload) << "the file's bytes arrived changed";
  std::remove(path.c_str());
}

// A GOAWAY can make a file upload start over while a pool read is in flight: the
// old pass's piece is dropped and the second pass sends the file from its start.
TEST(RequestBody, FileRewindsWhileAReadIsInFlight) {
  const std::string path = ::testing::TempDir() + "/sluice_body_rewind.bin";
  std::string payload;
  for (int i = 0; i < 600000; ++i) payload.push_back(static_cast<char>(i * 7 + 3));
  { std::ofstream(path, std::ios::binary) << payload; }
  FakeHttpThread http;
  WorkerPool pool(1);
  auto source = make(FileBody{path}, kDefaultReleaseThreshold, &pool, http.poster());
  // Take the first piece, then start the second read and rewind before it lands.
  SourceChunk first = source->peek(1 << 20);
  while (first.state == SourceChunk::State::waiting) {
    ASSERT_TRUE(http.run_one(kPoolDeadline)) << "the first pool read never landed";
    first = source->peek(1 << 20);
  }
  ASSERT_EQ(first.state, SourceChunk::State::data);
  source->consume(first.bytes.size());
  ASSERT_EQ(source->peek(1 << 20).state, SourceChunk::State::waiting);  // second read out
  ASSERT_TRUE(source->rewind()) << "a file can always be read again";
  const std::string sent = drain(*source, &http);
  EXPECT_EQ(sent.size(), payload.size());
  EXPECT_TRUE(sent == payload) << "the second pass must start at byte 0";
  std::remove(path.c_str());
}

// A PartsBody: each part to its end, then the next, with one length; an empty part
// in the middle hands over at once; a rewind starts at the first part again.
TEST(RequestBody, PartsFollowEachOtherAndRewindTogether) {
  const std::string path = ::testing::TempDir() + "/sluice_body_parts.bin";
  const std::string empty = path + ".empty";
  std::string file_bytes;
  for (int i = 0; i < 300000; ++i) file_bytes.push_back(static_cast<char>(i * 13 + 1));
  { std::ofstream(path, std::ios::binary) << file_bytes; }
  { std::ofstream(empty, std::ios::binary); }
  FakeHttpThread http;
  WorkerPool pool(1);
  PartsBody parts;
  parts.parts = {BytesBody{"head|"}, FileBody{empty}, FileBody{path}, BytesBody{""},
                 BytesBody{"|tail"}};
  auto source = make(std::move(parts), kDefaultReleaseThreshold, &pool, http.poster());
  const std::string expected = "head|" + file_bytes + "|tail";
  ASSERT_EQ(source->length(), expected.size());
  EXPECT_TRUE(drain(*source, &http) == expected) << "the parts arrived changed or out of order";
  ASSERT_TRUE(source->rewind());
  EXPECT_TRUE(drain(*source, &http) == expected) << "the second pass differs";
  std::remove(path.c_str());
  std::remove(empty.c_str());
}

TEST(RequestBody, PartsWithAMissingFileFailAtOnceNamingIt) {
  PartsBody parts;
  parts.parts = {BytesBody{"x"}, FileBody{"/nonexistent/part.bin"}};
  RequestBody body = std::move(parts);
  WorkerPool pool(1);
  auto source = make_body_source(body, environment([](std::function<void()>) {}, &pool, 0));
  ASSERT_FALSE(source.ok());
  EXPECT_EQ(source.error().category(), ErrorCategory::io);
  EXPECT_NE(source.error().message().find("/nonexistent/part.bin"), std::string::npos);
}

TEST(RequestBody, StreamClosedShortOfItsLengthFails) {
  FakeHttpThread http;
  auto writer = BodyWriter::create();
  auto source = make(StreamBody{writer, 10}, kDefaultReleaseThreshold, nullptr, http.poster());
  ASSERT_TRUE(writer->write("12345").ok());
  writer->close();
  const std::string result = drain(*source, &http);
  EXPECT_NE(result.find("closed after 5 of the declared 10 bytes"), std::string::npos) << result;
}

// queued() counts what was written and not yet consumed by the transport.
TEST(RequestBody, WriterQueuedCountsBytesNotYetTaken) {
  FakeHttpThread http;
  auto writer = BodyWriter::create();
  auto source =
      make(StreamBody{writer, std::nullopt}, kDefaultReleaseThreshold, nullptr, http.poster());
  EXPECT_EQ(writer->queued(), 0u);
  ASSERT_TRUE(writer->write("0123456789").ok());
  EXPECT_EQ(writer->queued(), 10u);
  SourceChunk chunk = source->peek(4);  // the transport takes 4 bytes
  ASSERT_EQ(chunk.state, SourceChunk::State::data);
  ASSERT_EQ(chunk.bytes.size(), 4u);
  EXPECT_EQ(writer->queued(), 6u);
  source->consume(chunk.bytes.size());
  writer->close();
  EXPECT_EQ(drain(*source, &http), "456789");
  EXPECT_EQ(writer->queued(), 0u);
}

TEST(RequestBody, WriterFailsOnceTheRequestEnded) {
  FakeHttpThread http;
  auto writer = BodyWriter::create();
  {
    auto source =
        make(StreamBody{writer, std::nullopt}, kDefaultReleaseThreshold, nullptr, http.poster());
  }
  auto late = writer->write("too late");
  ASSERT_FALSE(late.ok());
  EXPECT_EQ(late.error().category(), ErrorCategory::cancelled);
}

}  // namespace
}  // namespace sluice
