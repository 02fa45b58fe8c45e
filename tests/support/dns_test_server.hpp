#pragma once
// DnsTestServer: a tiny DNS server on UDP loopback for the resolver's tests. It answers
// A and AAAA questions for the names it was given, with their TTL; NXDOMAIN for any
// other name; or, when told to be silent, nothing at all (a black-holed name server).
// It counts the questions it was asked, per name and type.
// Ownership: constructed and configured on the test thread before queries start
// (answer(), silent()); its own thread answers; counts are read from any thread.

#include <atomic>
#include <cstdint>
#include <map>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

namespace sluice::test {

class DnsTestServer {
 public:
  DnsTestServer();  // binds 127.0.0.1 on a free port and starts answering
  ~DnsTestServer();
  DnsTestServer(const DnsTestServer&) = delete;
  DnsTestServer& operator=(const DnsTestServer&) = delete;

  /// `name` resolves to `addresses` (IPv4 and IPv6 literals) with `ttl` seconds.
  void answer(const std::string& name, std::vector<std::string> addresses, std::uint32_t ttl);
  /// Never answer anything from now on.
  void silent() { silent_ = true; }

  /// "127.0.0.1:PORT", for ClientOptions::dns_servers.
  std::string address() const;
  /// Questions received so far (every type), for `name`, or for all names.
  std::size_t questions(const std::string& name) const;
  std::size_t questions() const;

 private:
  void serve();
  std::string reply_to(const std::string& query);

  int fd_ = -1;
  int stop_fd_ = -1;  // an eventfd that ends serve()
  std::uint16_t port_ = 0;
  std::atomic<bool> silent_{false};
  mutable std::mutex mu_;
  struct Entry {
    std::vector<std::string> addresses;
    std::uint32_t ttl = 0;
  };
  std::map<std::string, Entry> names_;            // guarded by mu_
  std::map<std::string, std::size_t> questions_;  // guarded by mu_
  std::thread thread_;
};

}  // namespace sluice::test
