// gtlsclient (ngtcp2's example client, package ngtcp2-client) as the HTTP/3 peer of
// `throughput`: curl in Debian 12 has no HTTP/3. Main thread only.
//
// gtlsclient exits 0 even when the download failed (a handshake timeout, a 404), and
// without --download it keeps no count, so one verification run writes the body to a
// scratch directory and its size is checked; the timed runs discard the body, which
// is what sluice's runs do too.

#include <sys/stat.h>
#include <unistd.h>

#include <cstdlib>
#include <string>
#include <vector>

#include "bench/peer.hpp"
#include "sluice/url.hpp"

namespace sluice::bench {

namespace {

std::vector<std::string> gtlsclient_argv(const Url& url, const std::string& url_text) {
  // gtlsclient does not verify certificates: no CA option is needed or possible.
  return {"gtlsclient", "--exit-on-all-streams-close", "-q",
          url.host,     std::to_string(url.port),      url_text};
}

std::string last_path_segment(const Url& url) {
  const std::string target = url.target();
  const std::string path = target.substr(0, target.find('?'));
  return path.substr(path.rfind('/') + 1);
}

}  // namespace

Result<void> verify_gtlsclient(const BenchOptions& options, std::uint64_t expected_bytes) {
  auto url = Url::parse(options.url);
  if (!url) return std::move(url).error();
  char dir_template[] = "/tmp/sluice-bench-gtls.XXXXXX";
  if (::mkdtemp(dir_template) == nullptr) {
    return Error(ErrorCategory::io, "cannot make a scratch directory for gtlsclient");
  }
  const std::string dir = dir_template;
  std::vector<std::string> argv = gtlsclient_argv(*url, options.url);
  argv.insert(argv.begin() + 1, "--download=" + dir);
  Result<PeerRun> run = run_peer(argv);
  const std::string file = dir + "/" + last_path_segment(*url);
  struct stat info {};
  const bool found = ::stat(file.c_str(), &info) == 0;
  ::unlink(file.c_str());
  ::rmdir(dir.c_str());
  if (!run) return std::move(run).error();
  if (!found || static_cast<std::uint64_t>(info.st_size) != expected_bytes) {
    return Error(ErrorCategory::protocol,
                 "gtlsclient did not download " + options.url + " (" +
                     (found ? std::to_string(info.st_size) + " bytes" : std::string("no file")) +
                     ", expected " + std::to_string(expected_bytes) + ")");
  }
  return {};
}

Result<PeerRun> run_gtlsclient(const BenchOptions& options) {
  auto url = Url::parse(options.url);
  if (!url) return std::move(url).error();
  Result<PeerRun> run = run_peer(gtlsclient_argv(*url, options.url));
  if (!run) return run;
  if (run->exit_code != 0) {
    return Error(
        ErrorCategory::protocol,
        "gtlsclient exited with " + std::to_string(run->exit_code) + " for " + options.url);
  }
  return run;
}

}  // namespace sluice::bench
