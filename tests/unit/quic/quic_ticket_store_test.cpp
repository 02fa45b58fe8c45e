// QuicTicketStore: a ticket is kept with the parameters of the connection that got
// it, an origin's entry is replaced whole, and the oldest origin goes first.
#include "quic/quic_ticket_store.hpp"

#include <gtest/gtest.h>

namespace sluice {
namespace {

TEST(QuicTicketStore, ATicketKeepsItsOwnConnectionsParameters) {
  QuicTicketStore store(4);
  store.store("a:443", QuicSavedSession{"ticket-1", "params-1"});
  // A second connection's ticket without parameters yet replaces both: the old
  // parameters never pair with the new ticket.
  store.store("a:443", QuicSavedSession{"ticket-2", ""});
  const QuicSavedSession* saved = store.find("a:443");
  ASSERT_NE(saved, nullptr);
  EXPECT_EQ(saved->session_data, "ticket-2");
  EXPECT_EQ(saved->transport_params, "");
  store.store("a:443", QuicSavedSession{"ticket-2", "params-2"});
  EXPECT_EQ(store.find("a:443")->transport_params, "params-2");
  EXPECT_EQ(store.find("b:443"), nullptr);
}

TEST(QuicTicketStore, TheLeastRecentlyStoredOriginGoesFirst) {
  QuicTicketStore store(2);
  store.store("a:443", QuicSavedSession{"a", "pa"});
  store.store("b:443", QuicSavedSession{"b", "pb"});
  store.store("a:443", QuicSavedSession{"a2", "pa"});  // a is now the newest
  store.store("c:443", QuicSavedSession{"c", "pc"});
  EXPECT_EQ(store.find("b:443"), nullptr);
  ASSERT_NE(store.find("a:443"), nullptr);
  EXPECT_EQ(store.find("a:443")->session_data, "a2");
  ASSERT_NE(store.find("c:443"), nullptr);
}

TEST(QuicTicketStore, ZeroCapacityKeepsNothing) {
  QuicTicketStore store(0);
  store.store("a:443", QuicSavedSession{"a", "pa"});
  EXPECT_EQ(store.find("a:443"), nullptr);
}

}  // namespace
}  // namespace sluice
