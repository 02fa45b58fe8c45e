// The HTTP/3 rows of the fault matrix that need real QUIC: gtlsserver (started by the
// ctest fixture) behind the UDP fault proxy. A dead UDP path mid-body and before the
// response ends by the request's idle timeout, with a timeout error naming it and no
// short success; a lossy, duplicating, reordering path still delivers the exact body.
// (RESET_STREAM, the connection dying and GOAWAY/RESET storms are session rows in
// tests/unit/http3/h3_fault_matrix_test.cpp.)
#include <gtest/gtest.h>

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "sluice/sluice.hpp"
#include "support/make_client.hpp"
#include "support/test_env.hpp"
#include "support/test_server.hpp"
#include "support/udp_proxy.hpp"

namespace sluice {
namespace {

using namespace std::chrono_literals;

std::uint16_t port_of(const std::string& url) {
  return static_cast<std::uint16_t>(std::stoi(url.substr(url.rfind(':') + 1)));
}

struct ReadOutcome {
  std::size_t bytes = 0;
  std::optional<Error> error;
};

// Reads (and drops) until the body ends or `stop_after` bytes were read.
ReadOutcome read_until_end(BodyReader& body, std::size_t stop_after = SIZE_MAX) {
  ReadOutcome outcome;
  std::vector<std::byte> piece(64 * 1024);
  while (outcome.bytes < stop_after) {
    auto got = body.read(piece);
    if (!got.ok()) {
      outcome.error = got.error();
      return outcome;
    }
    if (*got == 0) return outcome;
    outcome.bytes += *got;
  }
  return outcome;
}

class FaultMatrixH3 : public ::testing::Test {
 protected:
  Client make_client() {
    ClientOptions options;
    options.tls.ca_file = env_.get("SLUICE_TEST_CA");
    return test::make_client(std::move(options));
  }
  // An HTTP/3-only request to gtlsserver through `proxy`.
  Request through(const test::UdpProxy& proxy, std::string_view path) {
    Request request =
        Request::get("https://localhost:" + std::to_string(proxy.port()) + std::string(path));
    request.version = VersionPolicy::http3_only;
    request.timeouts.connect = 10s;
    return request;
  }
  std::uint16_t gtls_port() const { return port_of(env_.get("SLUICE_GTLSSERVER_URL")); }

  test::TestEnv env_;
};

TEST_F(FaultMatrixH3, DeadUdpPathMidBodyEndsByTheIdleTimeout) {
  test::UdpProxy proxy("127.0.0.1", gtls_port());
  auto client = make_client();
  Request request = through(proxy, "/64m.bin");
  request.timeouts.idle = 1s;
  auto response = client.fetch(request);
  ASSERT_TRUE(response.ok()) << response.error().message();
  ReadOutcome first = read_until_end(response->body, 1 << 20);
  ASSERT_FALSE(first.error.has_value()) << first.error->message();
  proxy.set_black_hole(true);  // the path dies: nothing either way from now on
  ReadOutcome rest = read_until_end(response->body);
  ASSERT_TRUE(rest.error.has_value()) << "a body cut by a dead path ended as a short success of "
                                      << first.bytes + rest.bytes << " bytes";
  EXPECT_LT(first.bytes + rest.bytes, std::size_t{64} << 20);
  EXPECT_EQ(rest.error->category(), ErrorCategory::timeout) << rest.error->message();
  EXPECT_EQ(rest.error->message(), "idle timeout: no data from localhost:" +
                                       std::to_string(proxy.port()) + " for 1000 ms");
  EXPECT_GT(proxy.counters().dropped, 0u);
}

TEST_F(FaultMatrixH3, DeadUdpPathBeforeTheResponseEndsByTheIdleTimeout) {
  test::UdpProxy proxy("127.0.0.1", gtls_port());
  auto client = make_client();
  auto warm = client.fetch(through(proxy, "/small.txt"));  // the connection is up
  ASSERT_TRUE(warm.ok()) << warm.error().message();
  ASSERT_TRUE(warm->body.read_all().ok());
  proxy.set_black_hole(true);
  Request request = through(proxy, "/small.txt");
  request.timeouts.idle = 1s;
  auto response = client.fetch(request);
  ASSERT_FALSE(response.ok()) << "a response arrived over a dead path";
  EXPECT_EQ(response.error().category(), ErrorCategory::timeout) << response.error().message();
  EXPECT_EQ(response.error().message(), "idle timeout: no response from localhost:" +
                                            std::to_string(proxy.port()) + " for 1000 ms");
}

// Heavier than ClientHttp3.DownloadThroughTwoPercentLossMatches, on a smaller body:
// every fault of the proxy at once.
TEST_F(FaultMatrixH3, LossDuplicationAndReorderingStillDeliverTheExactBody) {
  test::UdpProxyOptions faults;
  faults.drop_probability = 0.08;
  faults.duplicate_probability = 0.05;
  faults.reorder_probability = 0.1;
  faults.seed = 7;
  test::UdpProxy proxy("127.0.0.1", gtls_port(), faults);
  auto client = make_client();
  Request request = through(proxy, "/1m.bin");
  request.timeouts.total = 60s;
  auto response = client.fetch(request);
  ASSERT_TRUE(response.ok()) << response.error().message();
  auto body = response->body.read_all();
  ASSERT_TRUE(body.ok()) << body.error().message();
  EXPECT_EQ(body->size(), std::size_t{1} << 20);
  EXPECT_EQ(test::sha256_hex(*body), env_.sha256_of("1m.bin"));
  const test::UdpProxyCounters counters = proxy.counters();
  EXPECT_GT(counters.dropped, 0u) << "the proxy dropped nothing: the test proves nothing";
  EXPECT_GT(counters.duplicated, 0u);
  EXPECT_GT(counters.reordered, 0u);
}

}  // namespace
}  // namespace sluice
