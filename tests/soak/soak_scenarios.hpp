#pragma once
// The soak's scenarios: one kind of request each (a real server's file, an upload, a
// fault from an in-process server), run by a worker thread and ending in exactly one
// recorded Outcome. run_good() and run_fault() hold the rules every scenario shares:
// a good transfer must arrive complete and exact, whatever the reader does to it; a
// fault must end in an error of the categories it allows, never in a short success.
// Everything here runs on the calling worker thread; SoakShared is shared read-only
// (Client and Tally are thread-safe).

#include <initializer_list>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "sluice/client.hpp"
#include "soak/soak_body.hpp"
#include "soak/soak_env.hpp"
#include "soak/soak_fault_servers.hpp"
#include "soak/soak_tally.hpp"

namespace sluice::soak {

struct SoakShared {
  const SoakEnv* env = nullptr;
  FaultServers* faults = nullptr;
  std::vector<Client>* clients = nullptr;  ///< long-lived, shared by every worker
  Tally* tally = nullptr;
  ClientOptions fresh_options;  ///< for a Client made for one scenario and destroyed
};

/// One scenario run by one worker.
struct Turn {
  const SoakShared& shared;
  Rng& rng;
  int worker = 0;
  std::uint64_t serial = 0;  ///< this worker's turn count (unique upload names)
  std::string client_label;  ///< "shared1", "fresh": the last Client handed out

  Client& shared_client();
  /// A fresh Client; the run fails loudly when one cannot be made.
  std::optional<Client> fresh_client(ClientOptions options);
  std::uint64_t uniform(std::uint64_t low, std::uint64_t high);  ///< inclusive
  bool chance(double probability);
  void record(std::string_view kind, Outcome outcome, std::string_view note = {});
};

/// What the reader does with a good body.
enum class Mode {
  full,            ///< reads it all at full speed
  slow,            ///< small reads with pauses, then the rest
  callback,        ///< on_data / on_end, pausing and resuming
  hold_then_read,  ///< leaves it unread for 1-4 s (its stream sits at the mark), then reads
  hold_then_drop,  ///< leaves it unread for 1-4 s, then drops it
  cancel_drop,     ///< reads a random part, then drops the Response
  cancel_call,     ///< reads a random part, calls cancel(), then reads on
  cancel_pending,  ///< cancels within 5 ms of sending, before or after the headers
};
Mode pick_mode(Turn& turn);
/// full, slow or callback: the readers that see a body to its end.
Mode pick_reading_mode(Turn& turn);

/// Which versions a response may come over; empty: any.
using Versions = std::vector<HttpVersion>;

/// Sends a request whose body must be `expected`, reads it the `mode` way and records
/// ok, cancelled (a cancel mode that took effect) or unexpected.
void run_good(Turn& turn, std::string_view kind, Client& client, Request request,
              const Expected& expected, Mode mode, Versions versions = {}, int status = 200);

/// Sends a request that must fail with one of `allowed`, before the headers or while
/// the body is read (at full speed, slowly or by callbacks, as the turn decides).
void run_fault(Turn& turn, std::string_view kind, Client& client, Request request,
               std::initializer_list<ErrorCategory> allowed);

using ScenarioFn = void (*)(Turn& turn);
struct Scenario {
  const char* name;
  int weight;  ///< relative frequency
  ScenarioFn run;
};
/// Traffic to the real servers (nginx, nghttpd, caddy, gtlsserver).
std::span<const Scenario> real_server_scenarios();
/// Traffic to the in-process fault servers and through the UDP fault proxy.
std::span<const Scenario> fault_server_scenarios();

}  // namespace sluice::soak
