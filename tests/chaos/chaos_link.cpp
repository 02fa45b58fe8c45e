#include "chaos/chaos_link.hpp"

#include <array>

namespace sluice::chaos {
namespace {

TcpFault tcp_fault(const std::string& name) {
  for (TcpFault fault : {TcpFault::pass, TcpFault::cut, TcpFault::reset, TcpFault::stall,
                         TcpFault::trickle, TcpFault::answer_503, TcpFault::cut_head}) {
    if (name == to_string(fault)) return fault;
  }
  return TcpFault::pass;
}

// The datagram faults, mild enough for QUIC's loss recovery to get through: the run
// checks that sluice survives them, not that it beats a dead path.
test::UdpProxyOptions udp_options(const std::string& fault, std::uint64_t seed) {
  test::UdpProxyOptions options;
  options.seed = seed;
  if (fault == "drop") options.drop_probability = 0.05;
  if (fault == "duplicate") options.duplicate_probability = 0.2;
  if (fault == "reorder") options.reorder_probability = 0.2;
  if (fault == "lossy") {
    options.drop_probability = 0.03;
    options.duplicate_probability = 0.1;
    options.reorder_probability = 0.1;
  }
  return options;
}

}  // namespace

const char* to_string(Protocol protocol) noexcept {
  switch (protocol) {
    case Protocol::h1: return "h1";
    case Protocol::h1_tls: return "h1_tls";
    case Protocol::h2: return "h2";
    case Protocol::h3: return "h3";
  }
  return "?";
}

std::string pick_fault(Protocol protocol, std::mt19937_64& rng) {
  static constexpr std::array<const char*, 7> kTcp = {"pass",    "cut", "reset",   "stall",
                                                      "trickle", "503", "cut_head"};
  static constexpr std::array<const char*, 5> kUdp = {"pass", "drop", "duplicate", "reorder",
                                                      "lossy"};
  if (protocol == Protocol::h3) {
    return kUdp[std::uniform_int_distribution<std::size_t>(0, kUdp.size() - 1)(rng)];
  }
  // 503 and a cut inside the response head are HTTP/1 in clear: a TLS or h2 proxy
  // cannot write a response.
  const std::size_t kinds = protocol == Protocol::h1 ? kTcp.size() : kTcp.size() - 2;
  return kTcp[std::uniform_int_distribution<std::size_t>(0, kinds - 1)(rng)];
}

bool survivable(const std::string& fault) {
  return fault == "pass" || fault == "trickle" || fault == "drop" || fault == "duplicate" ||
         fault == "reorder" || fault == "lossy";
}

ChaosLink::ChaosLink(const soak::SoakEnv& env, Protocol protocol, const std::string& fault,
                     std::uint64_t seed, std::uint64_t max_offset,
                     std::function<void(const std::string&)> log)
    : protocol_(protocol) {
  if (protocol == Protocol::h3) {
    log("chaos seed=" + std::to_string(seed) + " udp fault=" + fault);
    udp_ = std::make_unique<test::UdpProxy>("127.0.0.1", soak::port_of(env.caddy),
                                            udp_options(fault, seed));
    return;
  }
  const std::string& server = protocol == Protocol::h1       ? env.nginx_http
                              : protocol == Protocol::h1_tls ? env.nginx_https
                                                             : env.nginx_h2;
  ChaosProxyOptions options;
  options.target_port = soak::port_of(server);
  options.fault = tcp_fault(fault);
  options.seed = seed;
  options.max_offset = max_offset;
  tcp_ = std::make_unique<ChaosProxy>(options, std::move(log));
}

ChaosLink::~ChaosLink() = default;

std::string ChaosLink::base_url() const {
  if (protocol_ == Protocol::h1) return "http://127.0.0.1:" + std::to_string(tcp_->port());
  // caddy answers a Host that is not its site's name with an empty 200.
  if (udp_) return "https://localhost:" + std::to_string(udp_->port());
  return "https://127.0.0.1:" + std::to_string(tcp_->port());
}

void ChaosLink::faults_off() {
  if (tcp_) tcp_->set_faults(false);
  if (udp_) udp_->set_options(udp_options("pass", 1));
}

std::uint64_t run_seed(std::uint64_t seed, std::uint64_t index) noexcept {
  std::uint64_t z = seed + (index + 1) * 0x9e3779b97f4a7c15ull;
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}

}  // namespace sluice::chaos
