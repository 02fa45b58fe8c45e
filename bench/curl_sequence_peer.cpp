// Runs one curl process that fetches a URL many times in a row, the peer of
// `sluice-bench latency`. curl keeps its connection between the URLs of one command,
// so each transfer after the first is a request on a kept-alive connection, as ours
// are. Main thread only.

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <sstream>
#include <string>
#include <vector>

#include "bench/peer.hpp"
#include "bench/scratch_dir.hpp"

namespace sluice::bench {
namespace {

// What curl prints after each transfer: one line each, in order.
constexpr const char* kWriteOut = "%{http_code} %{time_total} %{num_connects} %{http_version}\\n";

// A config-file string: quoted, with curl's escapes for the two characters that need them.
std::string quoted(const std::string& text) {
  std::string out = "\"";
  for (char c : text) {
    if (c == '"' || c == '\\') out += '\\';
    out += c;
  }
  return out + "\"";
}

// The URLs go in a config file (-K), not on the command line: N of them could
// outgrow the kernel's limit on the arguments of one exec.
std::string config_text(const std::string& url, std::size_t requests) {
  const std::string lines = "url = " + quoted(url) + "\noutput = \"/dev/null\"\n";
  std::string text;
  text.reserve(lines.size() * requests);
  for (std::size_t i = 0; i < requests; ++i) text += lines;
  return text;
}

// A config file in $TMPDIR (or /tmp), unlinked when this goes. Main thread only.
class ConfigFile {
 public:
  ConfigFile() = default;
  ConfigFile(const ConfigFile&) = delete;
  ConfigFile& operator=(const ConfigFile&) = delete;
  ~ConfigFile() {
    if (!path_.empty()) ::unlink(path_.c_str());
  }

  Result<void> write(const std::string& parent, const std::string& text) {
    std::string pattern = parent + "/sluice-bench-curl.XXXXXX";
    const int fd = ::mkstemp(pattern.data());
    if (fd < 0) return io_error("cannot make a curl config file in " + parent);
    path_ = pattern;
    std::size_t written = 0;
    while (written < text.size()) {
      const ssize_t n = ::write(fd, text.data() + written, text.size() - written);
      if (n < 0 && errno == EINTR) continue;
      if (n < 0) {
        ::close(fd);
        return io_error("cannot write " + path_);
      }
      written += static_cast<std::size_t>(n);
    }
    if (::close(fd) != 0) return io_error("cannot write " + path_);
    return {};
  }

  const std::string& path() const { return path_; }

 private:
  static Error io_error(const std::string& what) {
    return Error(ErrorCategory::io, what + ": " + std::strerror(errno));
  }

  std::string path_;
};

std::vector<std::string> curl_argv(const BenchOptions& options, const std::string& config) {
  std::vector<std::string> argv = {"curl", "-s", "-S", "-w", kWriteOut};
  if (const char* version = curl_version_option(options.version)) argv.push_back(version);
  if (!options.ca_file.empty()) argv.insert(argv.end(), {"--cacert", options.ca_file});
  if (options.insecure) argv.push_back("-k");
  if (options.compressed) argv.push_back("--compressed");
  argv.insert(argv.end(), {"-K", config});
  return argv;
}

// One line per transfer; every status must be 2xx and every line readable.
Result<CurlSequence> parse_lines(const std::string& output, const BenchOptions& options,
                                 std::size_t requests) {
  CurlSequence sequence;
  std::istringstream lines(output);
  std::string line;
  while (std::getline(lines, line)) {
    int http_code = 0;
    double seconds = -1;
    std::uint64_t connects = 0;
    std::string version;
    if (!(std::istringstream(line) >> http_code >> seconds >> connects >> version)) {
      return Error(ErrorCategory::protocol, "curl printed an unreadable line: '" + line + "'");
    }
    if (http_code < 200 || http_code > 299) {
      return Error(ErrorCategory::protocol, "curl got HTTP status " + std::to_string(http_code) +
                                                " for " + options.url + " (expected 2xx)");
    }
    if (sequence.seconds.empty()) sequence.http_version = version;
    sequence.seconds.push_back(seconds);
    sequence.connects += connects;
  }
  if (sequence.seconds.size() != requests) {
    return Error(ErrorCategory::protocol, "curl reported " +
                                              std::to_string(sequence.seconds.size()) + " of " +
                                              std::to_string(requests) + " transfers");
  }
  return sequence;
}

}  // namespace

Result<CurlSequence> run_curl_sequence(const BenchOptions& options, std::size_t requests) {
  ConfigFile config;
  if (Result<void> written =
          config.write(scratch_parent(options), config_text(options.url, requests));
      !written) {
    return std::move(written).error();
  }
  Result<PeerRun> run = run_peer(curl_argv(options, config.path()));
  if (!run) return std::move(run).error();
  if (run->exit_code != 0) {
    std::string how = run->term_signal != 0
                          ? "was killed by signal " + std::to_string(run->term_signal)
                          : "exited with " + std::to_string(run->exit_code);
    return Error(ErrorCategory::protocol, "curl " + how + " fetching " + options.url);
  }
  return parse_lines(run->output, options, requests);
}

}  // namespace sluice::bench
