// OwnerReports: the owner hears each change once, and hears that a connection left
// its 0-RTT phase even when early requests took every stream (the pool ends its
// HTTP/3 attempt on that report).
#include "connection/owner_reports.hpp"

#include <gtest/gtest.h>

namespace sluice {
namespace {

class CountingOwner final : public ConnectionOwner {
 public:
  void on_connection_available(Connection&) override { ++available; }
  void on_connection_closed(Connection&) override { ++closed; }
  int available = 0;
  int closed = 0;
};

// Only its identity is used: OwnerReports passes it back to the owner.
class IdleConnection final : public Connection {
 public:
  HttpVersion version() const noexcept override { return HttpVersion::http3; }
  std::size_t available_streams() const noexcept override { return 0; }
  bool idle() const noexcept override { return true; }
  bool was_reused() const noexcept override { return false; }
  bool is_closed() const noexcept override { return false; }
  ExchangeId start(ExchangeRequest, ExchangeSink&) override { return kNoExchange; }
  void resume(ExchangeId) override {}
  void cancel(ExchangeId) override {}
  std::size_t release_scratch(std::chrono::steady_clock::time_point) override { return 0; }
  std::size_t scratch_bytes() const noexcept override { return 0; }
  void close(Error) override {}
  std::uint64_t id() const noexcept override { return 1; }
};

OwnerView view(std::size_t available, std::uint64_t ended, bool early) {
  return OwnerView{false, false, available, ended, early};
}

TEST(OwnerReports, LeavingTheEarlyPhaseIsReportedEvenWithEveryStreamTaken) {
  CountingOwner owner;
  OwnerReports reports(owner);
  IdleConnection conn;
  reports.tell(conn, view(100, 0, true));  // early data may go: streams to take
  EXPECT_EQ(owner.available, 1);
  reports.started(view(0, 0, true));  // early requests took them all
  reports.tell(conn, view(0, 0, true));
  EXPECT_EQ(owner.available, 1);          // nothing new
  reports.tell(conn, view(0, 0, false));  // the handshake completed
  EXPECT_EQ(owner.available, 2);
  reports.tell(conn, view(0, 0, false));
  EXPECT_EQ(owner.available, 2);  // told once
}

TEST(OwnerReports, MoreStreamsEndedExchangesAndTheCloseAreEachToldOnce) {
  CountingOwner owner;
  OwnerReports reports(owner);
  IdleConnection conn;
  reports.tell(conn, view(0, 0, false));
  EXPECT_EQ(owner.available, 0);
  reports.tell(conn, view(2, 0, false));
  EXPECT_EQ(owner.available, 1);
  reports.tell(conn, view(2, 1, false));  // an exchange ended
  EXPECT_EQ(owner.available, 2);
  reports.tell(conn, OwnerView{true, false, 0, 1, false});
  reports.tell(conn, OwnerView{true, false, 0, 1, false});
  EXPECT_EQ(owner.closed, 1);
}

}  // namespace
}  // namespace sluice
