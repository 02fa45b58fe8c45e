#pragma once
// ChaosLink: the faulty path between one chaos run (a download or a fetch) and one
// real server: a ChaosProxy in front of nginx for h1, h1 over TLS and h2, or a
// UdpProxy (tests/support) in front of caddy's HTTP/3 port that drops, duplicates or
// reorders datagrams. Built from the run's seed, so a replay meets the same faults.
// Thread-safety: one run's thread builds, uses and destroys it.

#include <cstdint>
#include <functional>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "chaos/chaos_proxy.hpp"
#include "soak/soak_env.hpp"
#include "support/udp_proxy.hpp"

namespace sluice::chaos {

enum class Protocol { h1, h1_tls, h2, h3 };

const char* to_string(Protocol protocol) noexcept;

/// A fault kind, by name ("cut", "503", "reorder", ...), that suits the protocol:
/// the HTTP/1-only ones for plain h1, the datagram ones for h3.
std::string pick_fault(Protocol protocol, std::mt19937_64& rng);

/// Whether every byte must still arrive through this fault kind: it slows or
/// shuffles (pass, trickle and the datagram faults), never cuts.
bool survivable(const std::string& fault);

class ChaosLink {
 public:
  /// `max_offset`: how far into the bytes towards the client a TCP fault may act
  /// (about the size of what is fetched). Decisions go to `log`.
  ChaosLink(const soak::SoakEnv& env, Protocol protocol, const std::string& fault,
            std::uint64_t seed, std::uint64_t max_offset,
            std::function<void(const std::string&)> log);
  ~ChaosLink();
  ChaosLink(const ChaosLink&) = delete;
  ChaosLink& operator=(const ChaosLink&) = delete;

  /// "http://127.0.0.1:PORT", "https://127.0.0.1:PORT" (the certificate names
  /// 127.0.0.1 too) or for h3 "https://localhost:PORT" (caddy's site name). The
  /// proxies listen on IPv4 only: clients must connect over IPv4 (-4).
  std::string base_url() const;
  /// From now on every connection and datagram passes.
  void faults_off();

 private:
  Protocol protocol_;
  std::unique_ptr<ChaosProxy> tcp_;
  std::unique_ptr<test::UdpProxy> udp_;
};

/// splitmix64 of (seed, index): the seed of run `index`, so any one run can be
/// replayed alone.
std::uint64_t run_seed(std::uint64_t seed, std::uint64_t index) noexcept;

}  // namespace sluice::chaos
