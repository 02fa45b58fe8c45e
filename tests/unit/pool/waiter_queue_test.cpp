// WaiterQueue: the order the pool serves waiters in, and its mark, which makes a
// waiter destroyed while the pool still holds it a stop in a debug build.
#include "pool/waiter_queue.hpp"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace sluice {
namespace {

class Waiter final : public ConnectionWaiter {
 public:
  explicit Waiter(std::string name) : name_(std::move(name)) {}
  const std::string& name() const { return name_; }

  const Url& url() const noexcept override { return url_; }
  VersionPolicy version_policy() const noexcept override { return VersionPolicy::automatic; }
  const std::optional<ProxyHop>& proxy_route() const noexcept override { return proxy_; }
  std::chrono::milliseconds tls_timeout() const noexcept override { return {}; }
  std::chrono::milliseconds connect_timeout() const noexcept override { return {}; }
  bool safe_for_early_data() const noexcept override { return false; }
  void attach(Connection&) override {}
  void fail(Error) override {}

 private:
  std::string name_;
  Url url_ = Url::parse("http://origin.test/").value();
  std::optional<ProxyHop> proxy_;
};

std::vector<std::string> names(const std::deque<ConnectionWaiter*>& waiters) {
  std::vector<std::string> out;
  for (const ConnectionWaiter* waiter : waiters)
    out.push_back(static_cast<const Waiter*>(waiter)->name());
  return out;
}

TEST(WaiterQueue, ServesInOrderAndAWithdrawnWaiterIsNotServed) {
  Waiter a("a"), b("b"), c("c"), d("d");
  WaiterQueue queue;
  queue.push(a);
  queue.push(b);
  queue.push(c);
  queue.push(d);
  EXPECT_EQ(&queue.front(), &a);
  EXPECT_EQ(&queue[2], &c);
  EXPECT_EQ(&queue.take_front(), &a);
  queue.remove(c);
  EXPECT_EQ(queue.size(), 2u);
  EXPECT_EQ(names(queue.take_all()), (std::vector<std::string>{"b", "d"}));
  EXPECT_TRUE(queue.empty());
}

TEST(WaiterQueue, AWaiterOutOfTheQueueMayGoHoweverItLeft) {
  WaiterQueue queue;
  auto served = std::make_unique<Waiter>("served");
  auto withdrawn = std::make_unique<Waiter>("withdrawn");
  auto failed = std::make_unique<Waiter>("failed");
  queue.push(*served);
  queue.push(*withdrawn);
  queue.push(*failed);
  queue.take_front();
  queue.remove(*withdrawn);
  queue.take_all();
  served.reset();  // none of these stops
  withdrawn.reset();
  failed.reset();
  auto at_shutdown = std::make_unique<Waiter>("at shutdown");
  queue.push(*at_shutdown);
  queue.release_all();
  at_shutdown.reset();
}

#ifndef NDEBUG
TEST(WaiterQueueDeathTest, AWaiterDestroyedWhileQueuedStopsADebugBuild) {
  EXPECT_DEATH(
      {
        WaiterQueue queue;
        auto waiter = std::make_unique<Waiter>("forgot to withdraw");
        queue.push(*waiter);
        waiter.reset();
      },
      "must leave the pool before it is destroyed");
}
#endif

}  // namespace
}  // namespace sluice
