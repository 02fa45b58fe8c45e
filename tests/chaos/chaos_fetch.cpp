// A chaos fetch: the library's Client GETs a served file through a ChaosLink, its
// reader either holding the allowance (small reads with pauses, so the transport
// stops and resumes) or releasing it (reading at full speed). The body must be
// byte-exact, or the fetch must fail with the ErrorCode of the fault the link did,
// within its deadline.

#include <chrono>
#include <set>

#include "chaos/chaos_link.hpp"
#include "chaos/chaos_run.hpp"
#include "sluice/client.hpp"
#include "soak/soak_body.hpp"

namespace sluice::chaos {
namespace {

using namespace std::chrono_literals;

constexpr auto kIdleTimeout = 2s;  // a stall must end in idle_timeout, not a hang
constexpr auto kTotalTimeout = 20s;
constexpr double kDeadlineSeconds = 23;  // the total timeout and the time to tear down

// What a cut, a reset, a stall or a cut head may end in, by layer.
const std::set<ErrorCode> kFaultCodes = {
    ErrorCode::protocol_error, ErrorCode::body_truncated, ErrorCode::empty_reply,
    ErrorCode::http2_framing,  ErrorCode::http3_failed,   ErrorCode::send_failed,
    ErrorCode::receive_failed, ErrorCode::idle_timeout,   ErrorCode::first_byte_timeout,
    ErrorCode::total_timeout,  ErrorCode::tls_failed,     ErrorCode::handshake_timeout,
    ErrorCode::timeout,
};

VersionPolicy policy(Protocol protocol) {
  switch (protocol) {
    case Protocol::h1:
    case Protocol::h1_tls: return VersionPolicy::http1_only;
    case Protocol::h2: return VersionPolicy::http2;
    case Protocol::h3: return VersionPolicy::http3_only;
  }
  return VersionPolicy::automatic;
}

void judge_error(const Error& error, RunRecord& record) {
  record.detail = to_string(error.code());
  if (survivable(record.fault) || kFaultCodes.count(error.code()) == 0) {
    record.outcome = "wrong";
    record.detail += ": " + error.describe();
  } else {
    record.outcome = "error";
  }
}

void fetch_once(const ChaosSetup& setup, Protocol protocol, bool held, const soak::ServedFile& file,
                const std::string& url, std::mt19937_64& rng, RunRecord& record) {
  ClientOptions options;
  options.tls.ca_file = setup.env.ca_file;
  options.routing.ip_version = IpVersion::v4_only;  // where the proxies listen
  auto client = Client::create(std::move(options));
  if (!client) {
    record.outcome = "wrong";
    record.detail = "Client::create: " + client.error().describe();
    return;
  }
  Request request = Request::get(url);
  request.version = policy(protocol);
  request.timeouts.idle = kIdleTimeout;
  request.timeouts.total = kTotalTimeout;
  if (held) request.allowance = {64 * 1024, 64 * 1024};
  auto response = client->fetch(std::move(request));
  if (!response) return judge_error(response.error(), record);
  if (response->status == 503 && record.fault == "503") {
    record.outcome = "status_503";
    return;
  }
  if (response->status != 200) {
    record.outcome = "wrong";
    record.detail = "status " + std::to_string(response->status);
    return;
  }
  soak::BodyCheck check(soak::Expected{file.size, file.sha256, {}});
  auto read = soak::read_to_end(response->body, check, rng, held);
  if (!read) return judge_error(read.error(), record);
  const std::string mismatch = check.mismatch();
  record.outcome = mismatch.empty() ? "ok" : "wrong";
  record.detail = mismatch;
}

}  // namespace

RunRecord run_fetch(const ChaosSetup& setup, std::uint64_t index) {
  RunRecord record;
  record.kind = "fetch";
  record.index = index;
  // Fetches draw from their own seeds: download i and fetch i differ.
  record.seed = run_seed(~setup.seed, index);
  std::mt19937_64 rng(record.seed);
  const auto protocol = static_cast<Protocol>(std::uniform_int_distribution<int>(0, 3)(rng));
  const bool held = std::bernoulli_distribution(0.5)(rng);
  const soak::ServedFile& file =
      setup.env.file(std::bernoulli_distribution(0.8)(rng) ? "1m.bin" : "large.txt");
  record.protocol = to_string(protocol);
  record.mode = held ? "held" : "released";
  record.fault = pick_fault(protocol, rng);
  const auto start = std::chrono::steady_clock::now();
  {
    ChaosLink link(setup.env, protocol, record.fault, record.seed, file.size + 8192,
                   [&record](const std::string& line) { record.log.push_back(line); });
    fetch_once(setup, protocol, held, file, link.base_url() + "/" + file.name, rng, record);
  }
  record.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  if (record.seconds > kDeadlineSeconds) {
    record.outcome = "wrong";
    record.detail += " (took " + std::to_string(record.seconds) + " s)";
  }
  return record;
}

}  // namespace sluice::chaos
