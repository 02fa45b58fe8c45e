// HostDispatch: the fd is readable exactly while tasks wait, run() runs them on the
// caller's thread in order, and once closed (the Client is gone) a post runs at once
// where it is made, since no dispatch() will come.
#include "body/host_dispatch.hpp"

#include <gtest/gtest.h>
#include <poll.h>

#include <thread>
#include <vector>

namespace sluice {
namespace {

bool readable(const HostDispatch& host) {
  pollfd fd{host.fd(), POLLIN, 0};
  return ::poll(&fd, 1, 0) == 1;
}

TEST(HostDispatch, TheFdIsReadableExactlyWhileTasksWait) {
  auto host = HostDispatch::create().value();
  EXPECT_FALSE(readable(*host));
  std::vector<int> ran;
  host->post([&] { ran.push_back(1); });
  host->post([&] { ran.push_back(2); });
  EXPECT_TRUE(readable(*host));
  EXPECT_TRUE(ran.empty()) << "post ran its task instead of queuing it";
  EXPECT_EQ(host->run(), 2u);
  EXPECT_EQ(ran, (std::vector<int>{1, 2}));
  EXPECT_FALSE(readable(*host));
}

TEST(HostDispatch, OnceClosedAPostRunsOnThePostersThreadAndQueuedTasksStay) {
  auto host = HostDispatch::create().value();
  int queued_ran = 0;
  host->post([&] { ++queued_ran; });
  host->close();
  std::thread::id ran_on;
  host->post([&] { ran_on = std::this_thread::get_id(); });
  EXPECT_EQ(ran_on, std::this_thread::get_id()) << "a post after close waited for a dispatch";
  EXPECT_EQ(queued_ran, 0);
  EXPECT_EQ(host->run(), 1u) << "what was queued before the close is still run";
  EXPECT_EQ(queued_ran, 1);
}

}  // namespace
}  // namespace sluice
