// Redirects over every version (versions.hpp): a chain of three 302s is followed to the
// file (max_redirects 3 is enough), one redirect fewer than the chain needs fails
// with too_large, and nothing is followed unless asked.
// Servers: nginx for h1, h1 over TLS and h2; caddy (the same redirects in its
// Caddyfile) for h3; nghttpd has no redirects, so h2c gets the same answers from the
// in-process H2TestServer.
#include <gtest/gtest.h>

#include <fstream>
#include <iterator>
#include <memory>

#include "integration/versions.hpp"
#include "sluice/sluice.hpp"
#include "support/h2_test_server.hpp"

namespace sluice {
namespace {

using test::Need;

class VersionsRedirect : public test::VersionsTest {
 protected:
  void SetUp() override {
    origin_ = base_url(Need::redirects);
    if (origin_.empty()) serve_in_process();
  }

  // nginx's redirect paths (nginx.conf.in) and /small.txt, over h2c.
  void serve_in_process() {
    std::ifstream in(env_.file_path("small.txt"), std::ios::binary);
    auto small = std::make_shared<const std::string>(std::istreambuf_iterator<char>(in),
                                                     std::istreambuf_iterator<char>());
    ASSERT_FALSE(small->empty()) << "no " << env_.file_path("small.txt");
    h2c_server_ = std::make_unique<test::H2TestServer>([small](test::H2ServerStream& stream) {
      const std::string path = stream.path();
      const std::string chain = "/redirect-chain/";
      if (path == "/redirect" || path == chain + "1") {
        stream.respond(302, {{"location", "/small.txt"}, {"content-length", "0"}}, true);
      } else if (path == chain + "2" || path == chain + "3") {
        const std::string next = chain + std::to_string(std::stoi(path.substr(chain.size())) - 1);
        stream.respond(302, {{"location", next}, {"content-length", "0"}}, true);
      } else if (path == "/small.txt") {
        stream.respond(200, {{"content-length", std::to_string(small->size())}});
        stream.send_body(*small, true);
      } else {
        stream.respond(404, {}, true);
      }
    });
    origin_ = "http://127.0.0.1:" + std::to_string(h2c_server_->port());
  }

  Request followed(std::string_view path, int max_redirects) const {
    Request request = request_to(origin_ + std::string(path));
    request.redirects.follow = true;
    request.redirects.max_redirects = max_redirects;
    return request;
  }

  std::unique_ptr<test::H2TestServer> h2c_server_;  // h2c only
  std::string origin_;
};

TEST_P(VersionsRedirect, ChainOfThreeIsFollowedWithMaxRedirectsThree) {
  auto client = make_client();
  auto response = client.fetch(followed("/redirect-chain/3", 3));
  ASSERT_TRUE(response.ok()) << response.error().describe();
  EXPECT_EQ(response->status, 200);
  EXPECT_EQ(response->redirects, 3);
  EXPECT_EQ(response->version, test::spoken_by(wire()));
  EXPECT_EQ(response->effective_url, origin_ + "/small.txt");
  expect_file(response->body, "small.txt");
  // Every hop went to the same origin, over the one connection it needed.
  EXPECT_EQ(client.stats().connections, 1u);
}

TEST_P(VersionsRedirect, ChainLongerThanMaxRedirectsFailsWithTooLarge) {
  auto client = make_client();
  auto response = client.fetch(followed("/redirect-chain/3", 2));
  ASSERT_FALSE(response.ok()) << "a chain of three was followed with max_redirects 2";
  EXPECT_EQ(response.error().category(), ErrorCategory::too_large) << response.error().describe();
  EXPECT_NE(response.error().message().find("more than 2 redirects"), std::string::npos)
      << response.error().message();

  // The origin still answers on the same client.
  auto next = client.fetch(followed("/redirect", 20));
  ASSERT_TRUE(next.ok()) << next.error().describe();
  EXPECT_EQ(next->redirects, 1);
  expect_file(next->body, "small.txt");
}

TEST_P(VersionsRedirect, RedirectIsNotFollowedUnlessAsked) {
  auto client = make_client();
  auto response = client.fetch(request_to(origin_ + "/redirect"));
  ASSERT_TRUE(response.ok()) << response.error().describe();
  EXPECT_EQ(response->status, 302);
  EXPECT_EQ(response->redirects, 0);
  const auto location = response->headers.get("location");
  ASSERT_TRUE(location.has_value());
  EXPECT_NE(location->find("/small.txt"), std::string_view::npos) << *location;
  auto body = response->body.read_all(1 << 20);
  EXPECT_TRUE(body.ok()) << body.error().describe();
}

INSTANTIATE_TEST_SUITE_P(Versions, VersionsRedirect, ::testing::ValuesIn(test::all_wires()),
                         test::wire_test_name);

}  // namespace
}  // namespace sluice
