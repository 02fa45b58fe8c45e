// DnsTestServer: answers A and AAAA questions from a table (RFC 1035 wire format).

#include "support/dns_test_server.hpp"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/eventfd.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <optional>
#include <stdexcept>

namespace sluice::test {
namespace {

constexpr std::uint16_t kTypeA = 1;
constexpr std::uint16_t kTypeAaaa = 28;

void put16(std::string& out, std::uint16_t value) {
  out += static_cast<char>(value >> 8);
  out += static_cast<char>(value & 0xff);
}

void put32(std::string& out, std::uint32_t value) {
  put16(out, static_cast<std::uint16_t>(value >> 16));
  put16(out, static_cast<std::uint16_t>(value & 0xffff));
}

std::uint16_t get16(const std::string& in, std::size_t at) {
  return static_cast<std::uint16_t>((static_cast<unsigned char>(in[at]) << 8) |
                                    static_cast<unsigned char>(in[at + 1]));
}

// The question's name (lowercase, dotted) and where the question's type starts.
std::optional<std::pair<std::string, std::size_t>> read_name(const std::string& in) {
  std::string name;
  std::size_t at = 12;
  while (at < in.size()) {
    const auto length = static_cast<unsigned char>(in[at++]);
    if (length == 0) return std::make_pair(name, at);
    if (length > 63 || at + length > in.size()) return std::nullopt;
    if (!name.empty()) name += '.';
    for (std::size_t i = 0; i < length; ++i) {
      name += static_cast<char>(std::tolower(static_cast<unsigned char>(in[at + i])));
    }
    at += length;
  }
  return std::nullopt;
}

}  // namespace

DnsTestServer::DnsTestServer() {
  fd_ = ::socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
  sockaddr_in address{};
  address.sin_family = AF_INET;
  address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  socklen_t length = sizeof address;
  if (fd_ < 0 || ::bind(fd_, reinterpret_cast<sockaddr*>(&address), sizeof address) != 0 ||
      ::getsockname(fd_, reinterpret_cast<sockaddr*>(&address), &length) != 0) {
    throw std::runtime_error("DnsTestServer: cannot bind a UDP socket on 127.0.0.1");
  }
  port_ = ntohs(address.sin_port);
  stop_fd_ = ::eventfd(0, EFD_CLOEXEC);
  thread_ = std::thread([this] { serve(); });
}

DnsTestServer::~DnsTestServer() {
  const std::uint64_t one = 1;
  (void)!::write(stop_fd_, &one, sizeof one);
  thread_.join();
  ::close(stop_fd_);
  ::close(fd_);
}

void DnsTestServer::answer(const std::string& name, std::vector<std::string> addresses,
                           std::uint32_t ttl) {
  std::lock_guard lock(mu_);
  names_[name] = Entry{std::move(addresses), ttl};
}

std::string DnsTestServer::address() const { return "127.0.0.1:" + std::to_string(port_); }

std::size_t DnsTestServer::questions(const std::string& name) const {
  std::lock_guard lock(mu_);
  auto found = questions_.find(name);
  return found == questions_.end() ? 0 : found->second;
}

std::size_t DnsTestServer::questions() const {
  std::lock_guard lock(mu_);
  std::size_t total = 0;
  for (const auto& [name, count] : questions_) total += count;
  return total;
}

void DnsTestServer::serve() {
  char buffer[1500];
  for (;;) {
    pollfd fds[2] = {{fd_, POLLIN, 0}, {stop_fd_, POLLIN, 0}};
    if (::poll(fds, 2, -1) < 0) continue;
    if (fds[1].revents != 0) return;
    sockaddr_storage from{};
    socklen_t from_length = sizeof from;
    const ssize_t got =
        ::recvfrom(fd_, buffer, sizeof buffer, 0, reinterpret_cast<sockaddr*>(&from), &from_length);
    if (got < 12) continue;
    const std::string reply = reply_to(std::string(buffer, static_cast<std::size_t>(got)));
    if (reply.empty() || silent_) continue;
    (void)::sendto(fd_, reply.data(), reply.size(), 0, reinterpret_cast<sockaddr*>(&from),
                   from_length);
  }
}

std::string DnsTestServer::reply_to(const std::string& query) {
  const auto question = read_name(query);
  if (!question || question->second + 4 > query.size()) return {};
  const auto& [name, type_at] = *question;
  const std::uint16_t type = get16(query, type_at);
  std::optional<Entry> entry;
  {
    std::lock_guard lock(mu_);
    ++questions_[name];
    if (auto found = names_.find(name); found != names_.end()) entry = found->second;
  }
  std::vector<std::string> rdata;
  if (entry) {
    for (const std::string& text : entry->addresses) {
      unsigned char bytes[16];
      if (type == kTypeA && inet_pton(AF_INET, text.c_str(), bytes) == 1) {
        rdata.emplace_back(reinterpret_cast<char*>(bytes), 4);
      } else if (type == kTypeAaaa && inet_pton(AF_INET6, text.c_str(), bytes) == 1) {
        rdata.emplace_back(reinterpret_cast<char*>(bytes), 16);
      }
    }
  }
  std::string reply;
  put16(reply, get16(query, 0));  // the query's id
  // QR, the query's RD, RA; NXDOMAIN (3) for an unknown name, NOERROR with no
  // answers (NODATA) for a known name without that family.
  put16(reply, static_cast<std::uint16_t>(0x8080 | (get16(query, 2) & 0x0100) | (entry ? 0 : 3)));
  put16(reply, 1);
  put16(reply, static_cast<std::uint16_t>(rdata.size()));
  put16(reply, 0);
  put16(reply, 0);
  reply.append(query, 12, type_at + 4 - 12);  // the question, as asked
  for (const std::string& data : rdata) {
    put16(reply, 0xC00C);  // the name: a pointer to the question's
    put16(reply, type);
    put16(reply, 1);  // IN
    put32(reply, entry->ttl);
    put16(reply, static_cast<std::uint16_t>(data.size()));
    reply += data;
  }
  return reply;
}

}  // namespace sluice::test
