#pragma once
// The version parameter of the Versions* suites (versions_*_test.cpp): each scenario
// runs over HTTP/1.1 (plain), HTTP/1.1 over TLS, HTTP/2 over TLS (ALPN), h2c (HTTP/2
// by prior knowledge) and HTTP/3, against the real servers the ctest fixture starts
// (tests/support/servers, tests/support/test_env.hpp).
//
// Which server a version talks to depends on what the scenario needs (server_key):
//   h1      nginx, plain                  files, redirects, the gzip bomb, uploads
//   h1_tls  nginx, TLS, http/1.1 only     the same
//   h2      nginx, TLS with ALPN h2       the same
//   h2c     nghttpd --no-tls              files, uploads (echoed back); no redirects
//                                         and no Content-Encoding: those suites use
//                                         the in-process H2TestServer for h2c
//   h3      caddy, UDP                    files, redirects, the bomb (precompressed),
//                                         uploads (caddy hands /upload/* to nginx)
// A server that stalls or reads slowly is a real one behind a path the test holds or
// slows (versions_path.hpp). Test names end in the version:
// Versions/VersionsDrop.SomeBehaviour/h2c.
// Ownership: everything here belongs to the test thread that made it, except
// TraceLog's sink, which the HTTP thread calls.

#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <functional>
#include <mutex>
#include <optional>
#include <ostream>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "sluice/sluice.hpp"
#include "support/client_on_clock.hpp"
#include "support/client_watch.hpp"
#include "support/make_client.hpp"
#include "support/test_body.hpp"
#include "support/test_env.hpp"

namespace sluice::test {

using namespace std::chrono_literals;

enum class Wire { h1, h1_tls, h2, h2c, h3 };

inline const char* wire_name(Wire wire) {
  switch (wire) {
    case Wire::h1: return "h1";
    case Wire::h1_tls: return "h1_tls";
    case Wire::h2: return "h2";
    case Wire::h2c: return "h2c";
    case Wire::h3: return "h3";
  }
  return "?";
}

// gtest prints parameters with this (found by ADL) in failure messages.
inline void PrintTo(Wire wire, std::ostream* out) { *out << wire_name(wire); }

inline std::vector<Wire> all_wires() {
  return {Wire::h1, Wire::h1_tls, Wire::h2, Wire::h2c, Wire::h3};
}

/// The versions that run over TLS (TCP TLS, or QUIC's).
inline std::vector<Wire> tls_wires() { return {Wire::h1_tls, Wire::h2, Wire::h3}; }

/// The versions that carry many exchanges on one connection (sibling streams).
inline std::vector<Wire> multiplexed_wires() { return {Wire::h2, Wire::h2c, Wire::h3}; }

// The suffix of each instantiated test's name.
inline std::string wire_test_name(const ::testing::TestParamInfo<Wire>& info) {
  return wire_name(info.param);
}

inline VersionPolicy policy_of(Wire wire) {
  switch (wire) {
    case Wire::h1:
    case Wire::h1_tls: return VersionPolicy::http1_only;
    case Wire::h2: return VersionPolicy::http2;
    case Wire::h2c: return VersionPolicy::http2_prior_knowledge;
    case Wire::h3: return VersionPolicy::http3_only;
  }
  return VersionPolicy::automatic;
}

inline HttpVersion spoken_by(Wire wire) {
  switch (wire) {
    case Wire::h1:
    case Wire::h1_tls: return HttpVersion::http1_1;
    case Wire::h2:
    case Wire::h2c: return HttpVersion::http2;
    case Wire::h3: return HttpVersion::http3;
  }
  return HttpVersion::http1_1;
}

/// Many exchanges at once on one connection (streams): h2, h2c and h3.
inline bool multiplexes(Wire wire) {
  return wire == Wire::h2 || wire == Wire::h2c || wire == Wire::h3;
}

/// What a scenario needs from a server.
enum class Need {
  files,      ///< the generated files (1m.bin, 64m.bin, small.txt, ...)
  redirects,  ///< /redirect, /redirect-chain/3 ...
  bomb,       ///< /bomb.bin as Content-Encoding: gzip (256 MiB of zeros in 250 KiB)
  uploads,    ///< PUT /upload/NAME stored and returned by GET, or echoed (nghttpd)
};

/// The TestEnv key of the real server that has `need` over `wire`; empty when no
/// real server has it (then the suite uses an in-process server, or skips).
inline std::string server_key(Wire wire, Need need) {
  switch (wire) {
    case Wire::h1: return "SLUICE_NGINX_HTTP_URL";
    case Wire::h1_tls: return "SLUICE_NGINX_HTTPS_URL";
    case Wire::h2: return "SLUICE_NGINX_H2_URL";
    case Wire::h2c:
      return need == Need::files || need == Need::uploads ? "SLUICE_NGHTTPD_H2C_URL" : "";
    case Wire::h3: return "SLUICE_CADDY_URL";
  }
  return "";
}

/// The most an exchange may hold beyond its allowance: over HTTP/1.1 and TLS, the rest
/// of one record already decrypted (OpenSSL's records are at most 16 KiB); nothing
/// otherwise (HTTP/1.1 receives no more than the room left, and h2/h3 windows are the
/// allowance).
constexpr std::size_t kPastTheAllowance = 16 * 1024;

/// Every trace line, kept for assertions.
class TraceLog {
 public:
  std::function<void(std::string_view)> sink() {
    return [this](std::string_view line) {
      std::lock_guard lock(mutex_);
      lines_.emplace_back(line);
    };
  }
  bool any_contains(std::string_view part) const {
    std::lock_guard lock(mutex_);
    for (const auto& line : lines_) {
      if (line.find(part) != std::string::npos) return true;
    }
    return false;
  }
  /// The lines so far, in order.
  std::vector<std::string> lines() const {
    std::lock_guard lock(mutex_);
    return lines_;
  }

 private:
  mutable std::mutex mutex_;
  std::vector<std::string> lines_;
};

/// Whether a trace line says the client let a server send more body: reading resumed
/// (h1), a stream's credit or window given back or grown (h2 "window +N", h3
/// "credit +N", both "window A -> B"), a paused stream resumed. What a held stream must
/// never see: it tells of the leak itself, before (and whether or not) the bytes it lets
/// through have arrived.
inline bool lets_server_send(std::string_view line) {
  for (std::string_view part : {"resumed", "window +", "credit +", "(rtt "}) {
    if (line.find(part) != std::string_view::npos) return true;
  }
  return false;
}

/// Waits until `done` holds at the end of one of `client`'s HTTP-thread turns, where
/// everything it may read changes (stats, trace lines), or `deadline` passed: false
/// then. `done` runs on the HTTP thread (wait_for_client) and must not block.
inline bool wait_until(Client& client, const std::function<bool()>& done,
                       std::chrono::milliseconds deadline = 10s) {
  return wait_for_client(client, done, deadline);
}

/// How a body read ended: its bytes (counted and hashed, not kept) and the error, if
/// any. A body that ends early must end in an error, never in a short success.
struct ReadOutcome {
  std::uint64_t bytes = 0;
  std::string sha256;  ///< of the bytes read (set when the read ended without error)
  std::optional<Error> error;
  std::size_t max_buffered = 0;  ///< the most BodyReader::buffered() showed between reads
};

/// Reads until the body ends, fails, or `stop_after` bytes were read.
inline ReadOutcome read_until_end(BodyReader& body, std::uint64_t stop_after = UINT64_MAX) {
  ReadOutcome outcome;
  Sha256 hash;
  std::vector<std::byte> piece(64 * 1024);
  while (outcome.bytes < stop_after) {
    outcome.max_buffered = std::max(outcome.max_buffered, body.buffered());
    const std::uint64_t left = stop_after - outcome.bytes;
    auto got = body.read(std::span(piece).first(
        static_cast<std::size_t>(std::min<std::uint64_t>(piece.size(), left))));
    if (!got.ok()) {
      outcome.error = got.error();
      return outcome;
    }
    if (*got == 0) break;
    hash.update(std::span<const std::byte>(piece).first(*got));
    outcome.bytes += *got;
  }
  outcome.sha256 = hash.hex_digest();
  return outcome;
}

/// read_until_end through BodyReader::next(): the body borrowed chunk by chunk into
/// `hash` (which may already hold the body's first bytes).
struct BorrowOutcome {
  ReadOutcome read;
};
inline BorrowOutcome borrow_until_end(BodyReader& body, Sha256& hash) {
  BorrowOutcome outcome;
  for (;;) {
    auto chunk = body.next();
    if (!chunk.ok()) {
      outcome.read.error = chunk.error();
      return outcome;
    }
    if (chunk->empty()) break;
    hash.update(chunk->bytes());
    outcome.read.bytes += chunk->size();
  }
  outcome.read.sha256 = hash.hex_digest();
  return outcome;
}

/// The fixture of every Versions* suite: a Client that trusts the test CA and keeps
/// its trace, and requests that speak the parameter's version.
class VersionsTest : public ::testing::TestWithParam<Wire> {
 protected:
  Wire wire() const { return GetParam(); }

  Client make_client(ClientOptions options = {}) {
    return test::make_client(with_defaults(std::move(options)));
  }
  /// The same, with the HTTP thread on `clock` (which outlives the Client): a hold
  /// or a timeout is then a move of the clock and a settle() (client_on_clock.hpp).
  Client make_client_on(const TimeSource& clock, ClientOptions options = {}) {
    auto client = client_on(clock, with_defaults(std::move(options)));
    EXPECT_TRUE(client.ok()) << (client.ok() ? "" : client.error().message());
    return std::move(client).value();
  }

  /// The base URL ("https://localhost:PORT") of the real server for `need`; "" when
  /// no real server has it over this version.
  std::string base_url(Need need) const {
    const std::string key = server_key(wire(), need);
    return key.empty() ? std::string() : env_.get(key);
  }

  /// A GET of `url` in this version. Every wait ends: a request that hangs fails
  /// with its total timeout instead of hanging the suite.
  Request request_to(std::string url) const {
    Request request = Request::get(std::move(url));
    request.version = policy_of(wire());
    request.timeouts.connect = 10s;
    request.timeouts.total = 60s;
    return request;
  }
  Request request_for(Need need, std::string_view path) const {
    return request_to(base_url(need) + std::string(path));
  }

  /// Reads a whole response body and checks it against a served file.
  void expect_file(BodyReader& body, std::string_view file) const {
    const ReadOutcome read = read_until_end(body);
    ASSERT_FALSE(read.error.has_value()) << read.error->describe();
    EXPECT_EQ(read.sha256, env_.sha256_of(file)) << file << ": " << read.bytes << " bytes";
  }

  TestEnv env_;
  TraceLog trace_;

 private:
  ClientOptions with_defaults(ClientOptions options) {
    options.tls.ca_file = env_.get("SLUICE_TEST_CA");
    if (!options.trace) options.trace = trace_.sink();
    return options;
  }
};

}  // namespace sluice::test
