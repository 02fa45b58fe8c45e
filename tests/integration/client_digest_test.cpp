// Authentication::digest and ::any against lighttpd's Digest (MD5, SHA-256, both
// offered) and nginx's Basic; the 401 round trip's rules against a scripted server
// (the body goes again, a stale nonce, a streamed body that cannot go again).
#include <gtest/gtest.h>

#include <cstdio>
#include <mutex>
#include <string>
#include <vector>

#include "sluice/sluice.hpp"
#include "support/fetch_all.hpp"
#include "support/make_client.hpp"
#include "support/test_env.hpp"
#include "support/test_server.hpp"
#include "tls/crypto_hash.hpp"

namespace sluice {
namespace {

using test::fetch_all;

// A Client whose trace lines are kept, to see which scheme answered.
class TracedClient {
 public:
  TracedClient() {
    ClientOptions options;
    options.trace = [this](std::string_view line) {
      std::lock_guard lock(mu_);
      lines_.emplace_back(line);
    };
    client_.emplace(test::make_client(std::move(options)));
  }
  Client& client() { return *client_; }
  // The trace lines that start "auth:".
  std::vector<std::string> auth_lines() {
    std::lock_guard lock(mu_);
    std::vector<std::string> out;
    for (const auto& line : lines_) {
      if (line.find("auth: ") != std::string::npos) out.push_back(line);
    }
    return out;
  }

 private:
  std::mutex mu_;
  std::vector<std::string> lines_;
  std::optional<Client> client_;  // last: destroyed first, while the trace's state lives
};

class ClientDigest : public ::testing::Test {
 protected:
  Request get(const std::string& path, Authentication auth) const {
    Request request = Request::get(env_.get("SLUICE_LIGHTTPD_URL") + path);
    request.auth = std::move(auth);
    return request;
  }
  Authentication digest() const {
    return Authentication::digest(env_.get("SLUICE_DIGEST_USER"),
                                  env_.get("SLUICE_DIGEST_PASSWORD"));
  }
  Authentication any() const {
    return Authentication::any(env_.get("SLUICE_DIGEST_USER"), env_.get("SLUICE_DIGEST_PASSWORD"));
  }
  test::TestEnv env_;
  TracedClient traced_;
};

TEST_F(ClientDigest, Md5AndSha256OpenTheirLocations) {
  for (const char* path : {"/digest-md5/small.txt", "/digest-sha256/small.txt"}) {
    auto fetched = fetch_all(traced_.client(), get(path, digest()));
    ASSERT_TRUE(fetched.ok()) << fetched.error().message();
    EXPECT_EQ(fetched->status, 200) << path;
    EXPECT_EQ(test::sha256_hex(fetched->body), env_.sha256_of("small.txt"));
  }
  const auto lines = traced_.auth_lines();
  ASSERT_EQ(lines.size(), 2u);
  EXPECT_NE(lines[0].find("with Digest MD5"), std::string::npos) << lines[0];
  EXPECT_NE(lines[1].find("with Digest SHA-256"), std::string::npos) << lines[1];
}

TEST_F(ClientDigest, AWrongPasswordReturnsTheSecond401) {
  auto fetched = fetch_all(traced_.client(),
                           get("/digest-sha256/small.txt",
                               Authentication::digest(env_.get("SLUICE_DIGEST_USER"), "wrong")));
  ASSERT_TRUE(fetched.ok()) << fetched.error().message();
  EXPECT_EQ(fetched->status, 401);
  EXPECT_EQ(traced_.auth_lines().size(), 1u);  // one answer, no loop
}

TEST_F(ClientDigest, WithoutCredentialsThe401IsTheResponse) {
  auto fetched =
      fetch_all(traced_.client(), get("/digest-md5/small.txt", Authentication::digest("", "")));
  ASSERT_TRUE(fetched.ok()) << fetched.error().message();
  EXPECT_EQ(fetched->status, 401);
  EXPECT_TRUE(traced_.auth_lines().empty());
}

TEST_F(ClientDigest, TheStrongestOfferedAlgorithmIsAnswered) {
  // lighttpd sends two WWW-Authenticate headers: SHA-256, then MD5.
  auto fetched = fetch_all(traced_.client(), get("/digest-both/small.txt", digest()));
  ASSERT_TRUE(fetched.ok()) << fetched.error().message();
  EXPECT_EQ(fetched->status, 200);
  const auto lines = traced_.auth_lines();
  ASSERT_EQ(lines.size(), 1u);
  EXPECT_NE(lines[0].find("with Digest SHA-256"), std::string::npos) << lines[0];
}

TEST_F(ClientDigest, CredentialsInTheUrlServeDigest) {
  const std::string base = env_.get("SLUICE_LIGHTTPD_URL");
  Request request = Request::get("http://" + env_.get("SLUICE_DIGEST_USER") + ":" +
                                 env_.get("SLUICE_DIGEST_PASSWORD") + "@" + base.substr(7) +
                                 "/digest-md5/small.txt");
  request.auth = Authentication::digest("", "");
  auto fetched = fetch_all(traced_.client(), request);
  ASSERT_TRUE(fetched.ok()) << fetched.error().message();
  EXPECT_EQ(fetched->status, 200);
}

TEST_F(ClientDigest, AnyauthPicksDigestFromLighttpdAndBasicFromNginx) {
  auto digest_fetched = fetch_all(traced_.client(), get("/digest-sha256/small.txt", any()));
  ASSERT_TRUE(digest_fetched.ok()) << digest_fetched.error().message();
  EXPECT_EQ(digest_fetched->status, 200);
  Request basic = Request::get(env_.get("SLUICE_NGINX_HTTP_URL") + "/auth/small.txt");
  basic.auth = Authentication::any(env_.get("SLUICE_AUTH_USER"), env_.get("SLUICE_AUTH_PASSWORD"));
  auto basic_fetched = fetch_all(traced_.client(), basic);
  ASSERT_TRUE(basic_fetched.ok()) << basic_fetched.error().message();
  EXPECT_EQ(basic_fetched->status, 200);
  EXPECT_EQ(test::sha256_hex(basic_fetched->body), env_.sha256_of("small.txt"));
  const auto lines = traced_.auth_lines();
  ASSERT_EQ(lines.size(), 2u);
  EXPECT_NE(lines[0].find("with Digest SHA-256"), std::string::npos) << lines[0];
  EXPECT_NE(lines[1].find("with Basic"), std::string::npos) << lines[1];
}

// A server that challenges each request without Authorization (offering `qop`), and
// answers the first `stale_answers` authenticated ones with a stale nonce; it keeps
// what came.
class ChallengingServer {
 public:
  explicit ChallengingServer(int stale_answers = 0, std::string qop = "auth")
      : stale_left_(stale_answers),
        qop_(std::move(qop)),
        server_([this](test::ServerConnection& conn) { serve(conn); }) {}
  std::string url(std::string_view path) const { return server_.url(path); }
  std::vector<test::ReceivedRequest> received() {
    std::lock_guard lock(mu_);
    return received_;
  }

 private:
  void serve(test::ServerConnection& conn) {
    while (auto request = conn.read_request()) {
      std::string reply;
      {
        std::lock_guard lock(mu_);
        received_.push_back(*request);
        const bool authorized = request->headers.contains("authorization");
        if (!authorized || stale_left_ > 0) {
          if (authorized) --stale_left_;
          const std::string nonce = "n" + std::to_string(received_.size());
          reply = test::http_response(
              401, "no",
              {{"WWW-Authenticate", "Digest realm=\"t\", qop=\"" + qop_ + "\", nonce=\"" + nonce +
                                        "\"" + (authorized ? ", stale=true" : "")}});
        } else {
          reply = test::http_response(200, "body:" + request->body);
        }
      }
      if (!conn.write(reply)) return;
    }
  }

  std::mutex mu_;
  int stale_left_;
  const std::string qop_;
  std::vector<test::ReceivedRequest> received_;
  test::TestServer server_;  // last: its handler threads stop before the rest goes
};

// POST /form with a small bytes body and Digest credentials u:p.
Request form_post(const ChallengingServer& server) {
  Request request = Request::get(server.url("/form"));
  request.method = "POST";
  request.body = BytesBody{"a=1&b=2"};
  request.auth = Authentication::digest("u", "p");
  return request;
}

TEST(ClientDigestRoundTrip, ABytesBodyIsSentAgainWithTheAnswer) {
  ChallengingServer server;
  auto client = test::make_client();
  auto fetched = fetch_all(client, form_post(server));
  ASSERT_TRUE(fetched.ok()) << fetched.error().message();
  EXPECT_EQ(fetched->status, 200);
  EXPECT_EQ(fetched->body, "body:a=1&b=2");
  const auto received = server.received();
  ASSERT_EQ(received.size(), 2u);
  EXPECT_EQ(received[0].body, "a=1&b=2");
  const std::string authorization(received[1].headers.get("authorization").value_or(""));
  EXPECT_NE(authorization.find("uri=\"/form\""), std::string::npos) << authorization;
  EXPECT_NE(authorization.find("nonce=\"n1\""), std::string::npos) << authorization;
}

// A parameter of an Authorization value (quoted or not), as a server reads it.
std::string digest_field(const std::string& header, const std::string& name) {
  const std::size_t at = header.find(" " + name + "=");
  if (at == std::string::npos) return "";
  const std::size_t start = at + name.size() + 2;
  if (header[start] == '"')
    return header.substr(start + 1, header.find('"', start + 1) - start - 1);
  return header.substr(start, header.find(',', start) - start);
}

// qop=auth-int alone: the answer hashes the body (RFC 7616 section 3.4.3); the
// server's side of the check is computed here from what arrived on the wire.
TEST(ClientDigestRoundTrip, AuthIntHashesTheBytesBodyThatWentAgain) {
  ChallengingServer server(0, "auth-int");
  auto client = test::make_client();
  auto fetched = fetch_all(client, form_post(server));
  ASSERT_TRUE(fetched.ok()) << fetched.error().message();
  EXPECT_EQ(fetched->status, 200);
  const auto received = server.received();
  ASSERT_EQ(received.size(), 2u);
  const std::string authorization(received[1].headers.get("authorization").value_or(""));
  EXPECT_EQ(digest_field(authorization, "qop"), "auth-int") << authorization;
  const auto h = [](const std::string& text) { return hex_digest(HashAlgorithm::md5, text); };
  const std::string ha2 = h("POST:/form:" + h(received[1].body));
  const std::string expected = h(h("u:t:p") + ":" + digest_field(authorization, "nonce") + ":" +
                                 digest_field(authorization, "nc") + ":" +
                                 digest_field(authorization, "cnonce") + ":auth-int:" + ha2);
  EXPECT_EQ(digest_field(authorization, "response"), expected) << authorization;
}

TEST(ClientDigestRoundTrip, AuthIntWithAFileBodyFailsSayingWhy) {
  ChallengingServer server(0, "auth-int");
  const std::string path = ::testing::TempDir() + "/sluice-auth-int-body";
  {
    std::FILE* file = std::fopen(path.c_str(), "wb");
    ASSERT_NE(file, nullptr);
    std::fputs("from a file", file);
    std::fclose(file);
  }
  auto client = test::make_client();
  Request request = Request::get(server.url("/upload"));
  request.method = "PUT";
  request.body = FileBody{path};
  request.auth = Authentication::digest("u", "p");
  auto fetched = fetch_all(client, request);
  std::remove(path.c_str());
  ASSERT_FALSE(fetched.ok());
  EXPECT_EQ(fetched.error().category(), ErrorCategory::usage);
  EXPECT_NE(fetched.error().message().find("auth-int"), std::string::npos)
      << fetched.error().message();
  EXPECT_EQ(server.received().size(), 1u);  // nothing went with a wrong answer
}

TEST(ClientDigestRoundTrip, AStaleNonceIsAnsweredOnceMoreWithTheNewOne) {
  ChallengingServer server(1);
  auto client = test::make_client();
  Request request = Request::get(server.url("/x"));
  request.auth = Authentication::digest("u", "p");
  auto fetched = fetch_all(client, request);
  ASSERT_TRUE(fetched.ok()) << fetched.error().message();
  EXPECT_EQ(fetched->status, 200);
  const auto received = server.received();
  ASSERT_EQ(received.size(), 3u);
  EXPECT_NE(std::string(received[2].headers.get("authorization").value_or("")).find("nonce=\"n2\""),
            std::string::npos);
}

TEST(ClientDigestRoundTrip, ASecondStaleAnswerIsTheResponse) {
  ChallengingServer server(5);
  auto client = test::make_client();
  Request request = Request::get(server.url("/x"));
  request.auth = Authentication::digest("u", "p");
  auto fetched = fetch_all(client, request);
  ASSERT_TRUE(fetched.ok()) << fetched.error().message();
  EXPECT_EQ(fetched->status, 401);
  EXPECT_EQ(server.received().size(), 3u);
}

TEST(ClientDigestRoundTrip, AStreamedBodyThatWentCannotGoAgain) {
  ChallengingServer server;
  auto client = test::make_client();
  auto writer = BodyWriter::create();
  Request request = Request::get(server.url("/upload"));
  request.method = "PUT";
  request.body = StreamBody{writer, 5};
  request.auth = Authentication::digest("u", "p");
  auto pending = client.send(request);
  ASSERT_TRUE(writer->write("hello").ok());
  writer->close();
  auto response = pending.wait();
  ASSERT_FALSE(response.ok());
  EXPECT_EQ(response.error().category(), ErrorCategory::usage);
  EXPECT_NE(response.error().message().find("cannot be sent again"), std::string::npos)
      << response.error().message();
}

}  // namespace
}  // namespace sluice
