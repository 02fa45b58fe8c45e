// Runs peer programs with posix_spawn and times them with wait4.

#include "bench/peer.hpp"

#include <fcntl.h>
#include <spawn.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <sstream>
#include <string_view>

extern char** environ;

namespace sluice::bench {
namespace {

double seconds(const timeval& tv) {
  return static_cast<double>(tv.tv_sec) + static_cast<double>(tv.tv_usec) / 1e6;
}

Error spawn_error(const std::string& program, int err) {
  return Error(ErrorCategory::io, "peer: cannot run '" + program + "': " + std::strerror(err));
}

// Reads fd to EOF. The child holds the only write end, so EOF means it closed stdout.
std::string read_all_from(int fd) {
  std::string text;
  char chunk[4096];
  for (;;) {
    ssize_t n = ::read(fd, chunk, sizeof chunk);
    if (n > 0) {
      text.append(chunk, static_cast<std::size_t>(n));
    } else if (n == 0 || errno != EINTR) {
      return text;
    }
  }
}

// This process's environment with `extra` ("NAME=value") added; an entry of extra
// replaces one of the same name, so the child sees one value (getenv takes the first).
std::vector<char*> child_environment(const std::vector<std::string>& extra) {
  std::vector<char*> env;
  for (const std::string& entry : extra) env.push_back(const_cast<char*>(entry.c_str()));
  for (char** entry = environ; *entry != nullptr; ++entry) {
    std::string_view inherited = *entry;
    bool replaced = false;
    for (const std::string& added : extra) {
      const std::string_view name = std::string_view(added).substr(0, added.find('=') + 1);
      replaced = replaced || inherited.starts_with(name);
    }
    if (!replaced) env.push_back(*entry);
  }
  env.push_back(nullptr);
  return env;
}

// Spawns with stdout on pipe_write and stdin on /dev/null; returns the pid or errno.
int spawn_child(const std::vector<std::string>& argv, const std::vector<std::string>& extra_env,
                int pipe_write, pid_t* pid) {
  std::vector<char*> args;
  for (const std::string& arg : argv) args.push_back(const_cast<char*>(arg.c_str()));
  args.push_back(nullptr);
  std::vector<char*> env = child_environment(extra_env);
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, STDIN_FILENO, "/dev/null", O_RDONLY, 0);
  posix_spawn_file_actions_adddup2(&actions, pipe_write, STDOUT_FILENO);
  int err = posix_spawnp(pid, args[0], &actions, nullptr, args.data(), env.data());
  posix_spawn_file_actions_destroy(&actions);
  return err;
}

}  // namespace

Result<PeerRun> run_peer(const std::vector<std::string>& argv,
                         const std::vector<std::string>& extra_env) {
  int fds[2];
  if (::pipe2(fds, O_CLOEXEC) != 0) return spawn_error(argv.at(0), errno);
  auto start = std::chrono::steady_clock::now();
  pid_t pid = 0;
  int err = spawn_child(argv, extra_env, fds[1], &pid);
  ::close(fds[1]);
  if (err != 0) {
    ::close(fds[0]);
    return spawn_error(argv.at(0), err);
  }
  PeerRun run;
  run.output = read_all_from(fds[0]);
  ::close(fds[0]);
  int status = 0;
  rusage usage{};
  while (::wait4(pid, &status, 0, &usage) < 0) {
    if (errno != EINTR) return spawn_error(argv.at(0), errno);
  }
  run.wall_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  run.cpu_s = seconds(usage.ru_utime) + seconds(usage.ru_stime);
  if (WIFEXITED(status)) run.exit_code = WEXITSTATUS(status);
  if (WIFSIGNALED(status)) run.term_signal = WTERMSIG(status);
  return run;
}

bool on_path(std::string_view program) {
  const char* path = std::getenv("PATH");
  if (path == nullptr) return false;
  std::string_view dirs = path;
  while (!dirs.empty()) {
    std::size_t colon = dirs.find(':');
    std::string_view dir = dirs.substr(0, colon);
    std::string candidate =
        (dir.empty() ? std::string(".") : std::string(dir)) + "/" + std::string(program);
    if (::access(candidate.c_str(), X_OK) == 0) return true;
    if (colon == std::string_view::npos) break;
    dirs.remove_prefix(colon + 1);
  }
  return false;
}

Result<CurlRun> run_curl(const BenchOptions& options) {
  // -S keeps curl's error message visible although -s hides the progress meter.
  std::vector<std::string> argv = {
      "curl", "-s", "-S", "-o", "/dev/null", "-w", "%{http_code} %{size_download} %{http_version}"};
  if (const char* version = curl_version_option(options.version)) argv.push_back(version);
  if (!options.ca_file.empty()) argv.insert(argv.end(), {"--cacert", options.ca_file});
  if (options.insecure) argv.push_back("-k");
  if (options.compressed) argv.push_back("--compressed");
  argv.push_back(options.url);

  Result<PeerRun> run = run_peer(argv);
  if (!run) return std::move(run).error();
  if (run->exit_code != 0) {
    std::string how = run->term_signal != 0
                          ? "was killed by signal " + std::to_string(run->term_signal)
                          : "exited with " + std::to_string(run->exit_code);
    return Error(ErrorCategory::protocol, "curl " + how + " downloading " + options.url);
  }
  int http_code = 0;
  CurlRun curl{run->wall_s, run->cpu_s, 0, ""};
  std::istringstream(run->output) >> http_code >> curl.bytes >> curl.http_version;
  if (http_code < 200 || http_code > 299) {
    return Error(ErrorCategory::protocol, "curl got HTTP status " + std::to_string(http_code) +
                                              " for " + options.url + " (expected 2xx)");
  }
  return curl;
}

}  // namespace sluice::bench
