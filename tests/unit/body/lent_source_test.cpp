// A lent request body's source: the caller's bytes read in place, and the lease that
// gives them back once, by the release rule, through the host's queue when there is one.
#include "body/lent_source.hpp"

#include <gtest/gtest.h>

#include <functional>
#include <string>
#include <vector>

namespace sluice {
namespace {

std::string drain(RequestBodySource& source) {
  std::string all;
  for (;;) {
    const SourceChunk chunk = source.peek(7);
    if (chunk.state != SourceChunk::State::data) return all;
    all.append(reinterpret_cast<const char*>(chunk.bytes.data()), chunk.bytes.size());
    source.consume(chunk.bytes.size());
  }
}

class LentSourceTest : public ::testing::Test {
 protected:
  LentBody lend(const std::string& bytes) {
    return LentBody(std::as_bytes(std::span(bytes)), [this] { ++released; });
  }
  std::unique_ptr<RequestBodySource> source_of(LentBody& body) {
    RequestBody request_body = body;
    auto made = make_body_source(request_body, env);
    EXPECT_TRUE(made.has_value());
    return made ? std::move(*made) : nullptr;
  }

  int released = 0;
  BodyEnvironment env;
};

TEST_F(LentSourceTest, ALargeBodyIsReleasedOnceTheLastByteIsTakenAndCannotRewind) {
  const std::string bytes(100, 'x');
  env.release_threshold = 64;
  auto source = [&] {
    LentBody body = lend(bytes);
    return source_of(body);
  }();  // the caller's own LentBody is gone: only the source holds the lease
  ASSERT_TRUE(source);
  EXPECT_EQ(source->length(), 100u);
  EXPECT_EQ(source->held_bytes(), 0u) << "lent bytes are the caller's, not the library's";
  EXPECT_EQ(drain(*source), bytes);
  EXPECT_EQ(released, 1);
  EXPECT_FALSE(source->rewind());
  source.reset();
  EXPECT_EQ(released, 1) << "released twice";
}

TEST_F(LentSourceTest, ASmallBodyRewindsAndIsReleasedWhenTheLastHoldEnds) {
  const std::string bytes = "small";
  env.release_threshold = 64;
  LentBody body = lend(bytes);
  LentBody copy = body;  // a Request kept by the caller
  auto source = source_of(body);
  EXPECT_EQ(drain(*source), bytes);
  EXPECT_TRUE(source->rewind());
  EXPECT_EQ(drain(*source), bytes);
  source.reset();
  EXPECT_EQ(released, 0);
  const std::string other = "other";
  body = lend(other);  // drops one hold of the first lease, takes a second lease
  EXPECT_EQ(released, 0);
  copy = body;  // the first lease's last hold goes
  EXPECT_EQ(released, 1);
}

TEST_F(LentSourceTest, WithAHostQueueTheReleaseIsPostedThere) {
  std::vector<std::function<void()>> host_queue;
  env.run_user = [&](std::function<void()> task) { host_queue.push_back(std::move(task)); };
  const std::string bytes = "to the host";
  auto source = [&] {
    LentBody body = lend(bytes);
    return source_of(body);
  }();
  EXPECT_EQ(drain(*source), bytes);
  source.reset();
  EXPECT_EQ(released, 0) << "release ran where the hold ended, not in the host's dispatch";
  ASSERT_EQ(host_queue.size(), 1u);
  host_queue.front()();
  EXPECT_EQ(released, 1);
}

}  // namespace
}  // namespace sluice
