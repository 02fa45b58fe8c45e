// The rules every soak scenario shares: run_good() and run_fault(), the reading
// modes, and the Turn helpers. Worker threads only.

#include <algorithm>
#include <chrono>
#include <thread>

#include "soak/soak_scenarios.hpp"

namespace sluice::soak {
namespace {

using namespace std::chrono_literals;

bool is_cancel_mode(Mode mode) {
  return mode == Mode::cancel_call || mode == Mode::cancel_pending || mode == Mode::cancel_drop;
}

const char* mode_name(Mode mode) {
  switch (mode) {
    case Mode::full: return "full";
    case Mode::slow: return "slow";
    case Mode::callback: return "callback";
    case Mode::hold_then_read: return "hold_then_read";
    case Mode::hold_then_drop: return "hold_then_drop";
    case Mode::cancel_drop: return "cancel_drop";
    case Mode::cancel_call: return "cancel_call";
    case Mode::cancel_pending: return "cancel_pending";
  }
  return "?";
}

std::string where(const Turn& turn, const Request& request, Mode mode) {
  return request.method + " " + request.url + " (" + mode_name(mode) + ", " + turn.client_label +
         ")";
}

// The soak's own verdict on a callback body that stopped (soak_body.cpp): a callback
// reader's handle does not end the body when dropped, so the request is cancelled.
bool is_soak_stall(const Error& error) { return error.message().starts_with("soak: "); }

bool version_accepted(const Versions& versions, HttpVersion got) {
  return versions.empty() || std::find(versions.begin(), versions.end(), got) != versions.end();
}

bool is_hold_mode(Mode mode) {
  return mode == Mode::hold_then_read || mode == Mode::hold_then_drop;
}

// A hold mode gives its request this idle timeout, shorter than most holds (1-4 s):
// time the reader holds the body at its mark must not count as idle.
constexpr auto kHoldIdle = 2s;

// The idle timeout covers every silence of the server, not only the hold: the wait
// for the head, the body's way to its mark, the rest after the hold. On a loaded
// machine (ThreadSanitizer, both cores busy) those can last 2 s, and a timeout there
// is right. So a hold mode notes, on this thread's clock, when its request left and
// when its hold ended, and whether the body then sat at its mark: then it was paused,
// its silence ours, from the moment it got there until the reader read on (an idle
// timeout on its way to the mark would have stopped it short of it). A decoding body
// may pause below its mark in decoded bytes (undecoded ones count too): its idle
// timeouts in the hold then pass as outside it.
struct HoldWatch {
  std::size_t mark = 0;
  std::chrono::steady_clock::time_point sent;
  std::optional<std::chrono::steady_clock::time_point> hold_ended;
  bool held_at_mark = false;
};

// Whether `error` is an idle timeout that a silence outside the hold explains: before
// the hold began (the head), or once it ended; or a body that never sat at its mark
// in the hold. Any other idle timeout must have started while the reader held a paused
// body: held time counted as idle, which is what the hold modes look for.
bool idle_timeout_outside_hold(const Error& error, const HoldWatch& watch) {
  if (error.code() != ErrorCode::idle_timeout) return false;
  const auto now = std::chrono::steady_clock::now();
  if (!watch.hold_ended) return now - watch.sent >= kHoldIdle;
  return !watch.held_at_mark || now - *watch.hold_ended >= kHoldIdle;
}

// Pace, not synchronisation: the reader's own hold, its length the scenario's choice.
void hold(Turn& turn, const BodyReader& body, HoldWatch& watch) {
  std::this_thread::sleep_for(std::chrono::milliseconds(turn.uniform(1000, 4000)));
  watch.hold_ended = std::chrono::steady_clock::now();
  watch.held_at_mark = body.buffered() >= watch.mark;
}

// Reads the body as `mode` says. std::nullopt: the worker dropped it on purpose.
std::optional<Result<void>> read_body(Turn& turn, PendingResponse& pending, Response& response,
                                      BodyCheck& check, Mode mode, std::uint64_t size,
                                      HoldWatch& watch) {
  switch (mode) {
    case Mode::full:
    case Mode::cancel_pending: return read_to_end(response.body, check, turn.rng, false);
    case Mode::slow: return read_to_end(response.body, check, turn.rng, true);
    case Mode::callback: return read_by_callbacks(response.body, check, turn.rng);
    case Mode::hold_then_read:
      hold(turn, response.body, watch);
      return read_to_end(response.body, check, turn.rng, false);
    case Mode::hold_then_drop: hold(turn, response.body, watch); return std::nullopt;
    case Mode::cancel_drop:
      (void)read_some(response.body, check, turn.uniform(0, size));
      return std::nullopt;
    case Mode::cancel_call: {
      auto partial = read_some(response.body, check, turn.uniform(0, size));
      pending.cancel();
      if (!partial) return partial;
      return read_to_end(response.body, check, turn.rng, false);
    }
  }
  return std::nullopt;
}

}  // namespace

Client& Turn::shared_client() {
  auto& clients = *shared.clients;
  const std::uint64_t index = uniform(0, clients.size() - 1);
  client_label = "shared" + std::to_string(index);
  return clients[index];
}

std::optional<Client> Turn::fresh_client(ClientOptions options) {
  client_label = "fresh";
  auto client = Client::create(std::move(options));
  if (!client) {
    record("fresh_client", Outcome::unexpected, "Client::create: " + client.error().describe());
    return std::nullopt;
  }
  return std::move(*client);
}

std::uint64_t Turn::uniform(std::uint64_t low, std::uint64_t high) {
  return std::uniform_int_distribution<std::uint64_t>(low, high)(rng);
}

bool Turn::chance(double probability) { return std::bernoulli_distribution(probability)(rng); }

void Turn::record(std::string_view kind, Outcome outcome, std::string_view note) {
  shared.tally->record(kind, outcome, note);
}

Mode pick_mode(Turn& turn) {
  static constexpr std::pair<Mode, int> kWeights[] = {
      {Mode::full, 30},          {Mode::slow, 12},          {Mode::callback, 10},
      {Mode::hold_then_read, 8}, {Mode::hold_then_drop, 5}, {Mode::cancel_drop, 12},
      {Mode::cancel_call, 12},   {Mode::cancel_pending, 11}};
  int total = 0;
  for (const auto& [mode, weight] : kWeights) total += weight;
  int pick = static_cast<int>(turn.uniform(0, total - 1));
  for (const auto& [mode, weight] : kWeights) {
    if (pick < weight) return mode;
    pick -= weight;
  }
  return Mode::full;
}

Mode pick_reading_mode(Turn& turn) {
  static constexpr Mode kModes[] = {Mode::full, Mode::full, Mode::slow, Mode::callback};
  return kModes[turn.uniform(0, std::size(kModes) - 1)];
}

void run_good(Turn& turn, std::string_view kind, Client& client, Request request,
              const Expected& expected, Mode mode, Versions versions, int status) {
  const std::string what = where(turn, request, mode);
  // A hang guard: a good transfer that stops would otherwise stall the soak silently.
  if (request.timeouts.total.count() == 0) request.timeouts.total = 180s;
  // Held time must not count as idle: a held body sits paused at its mark.
  if (is_hold_mode(mode)) request.timeouts.idle = kHoldIdle;
  HoldWatch watch{request.allowance.initial_bytes, std::chrono::steady_clock::now(), std::nullopt,
                  false};
  PendingResponse pending = client.send(std::move(request));
  if (mode == Mode::cancel_pending) {
    std::this_thread::sleep_for(std::chrono::microseconds(turn.uniform(0, 5000)));
    pending.cancel();
  }
  auto response = pending.wait();
  if (!response) {
    if (mode == Mode::cancel_pending && response.error().category() == ErrorCategory::cancelled) {
      return turn.record(kind, Outcome::cancelled);
    }
    if (is_hold_mode(mode) && idle_timeout_outside_hold(response.error(), watch)) {
      return turn.record(kind, Outcome::expected_error, "idle_timeout_outside_hold");
    }
    return turn.record(kind, Outcome::unexpected, what + ": " + response.error().describe());
  }
  if (response->status != status || !version_accepted(versions, response->version)) {
    return turn.record(kind, Outcome::unexpected,
                       what + ": status " + std::to_string(response->status) + " over HTTP/" +
                           to_string(response->version));
  }
  BodyCheck check(expected);
  auto result = read_body(turn, pending, *response, check, mode, expected.size, watch);
  if (!result) return turn.record(kind, Outcome::cancelled);
  if (!*result && is_soak_stall(result->error())) pending.cancel();
  if (!*result) {
    if (is_cancel_mode(mode) && result->error().category() == ErrorCategory::cancelled) {
      return turn.record(kind, Outcome::cancelled);
    }
    if (is_hold_mode(mode) && idle_timeout_outside_hold(result->error(), watch)) {
      return turn.record(kind, Outcome::expected_error, "idle_timeout_outside_hold");
    }
    return turn.record(kind, Outcome::unexpected,
                       what + ": body failed after " + std::to_string(check.bytes()) +
                           " bytes: " + result->error().describe());
  }
  // Complete: even a cancelled request may have ended first, but it must be whole.
  const std::string mismatch = check.mismatch();
  if (!mismatch.empty()) return turn.record(kind, Outcome::unexpected, what + ": " + mismatch);
  turn.record(kind, Outcome::ok);
}

void run_fault(Turn& turn, std::string_view kind, Client& client, Request request,
               std::initializer_list<ErrorCategory> allowed) {
  const Mode mode = pick_reading_mode(turn);
  const std::string what = where(turn, request, mode);
  if (request.timeouts.total.count() == 0) request.timeouts.total = 180s;
  const auto judge_error = [&](const Error& error, std::uint64_t bytes) {
    if (!is_soak_stall(error) &&
        std::find(allowed.begin(), allowed.end(), error.category()) != allowed.end()) {
      return turn.record(kind, Outcome::expected_error, to_string(error.category()));
    }
    turn.record(
        kind, Outcome::unexpected,
        what + ": wrong error after " + std::to_string(bytes) + " bytes: " + error.describe());
  };
  PendingResponse pending = client.send(std::move(request));
  auto response = pending.wait();
  if (!response) return judge_error(response.error(), 0);
  // The fault servers' bodies are cut from their payload, so the bytes are checked too.
  BodyCheck check(Expected{FaultServers::kPayloadSize, "", turn.shared.faults->payload()});
  HoldWatch no_hold;  // the reading modes never hold
  auto result = read_body(turn, pending, *response, check, mode, 0, no_hold);
  if (result && !*result && is_soak_stall(result->error())) pending.cancel();
  if (result && *result) {
    return turn.record(
        kind, Outcome::unexpected,
        what + ": a fault ended as a success after " + std::to_string(check.bytes()) + " bytes");
  }
  if (!result) return;
  if (!check.prefix_matches()) {
    return turn.record(kind, Outcome::unexpected, what + ": bytes before the fault were corrupt");
  }
  judge_error(result->error(), check.bytes());
}

}  // namespace sluice::soak
