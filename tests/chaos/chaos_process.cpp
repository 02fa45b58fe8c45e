#include "chaos/chaos_process.hpp"

#include <fcntl.h>
#include <spawn.h>
#include <sys/wait.h>

#include <chrono>
#include <fstream>
#include <span>
#include <sstream>

#include "soak/soak_body.hpp"

extern char** environ;

namespace sluice::chaos {

ProcessResult run_process(const std::vector<std::string>& argv, const std::string& stderr_file) {
  ProcessResult result;
  std::vector<char*> args;
  for (const std::string& arg : argv) args.push_back(const_cast<char*>(arg.c_str()));
  args.push_back(nullptr);
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0);
  posix_spawn_file_actions_addopen(&actions, 2, stderr_file.c_str(), O_WRONLY | O_CREAT | O_TRUNC,
                                   0644);
  const auto start = std::chrono::steady_clock::now();
  pid_t pid = 0;
  const int rv = posix_spawn(&pid, args[0], &actions, nullptr, args.data(), environ);
  posix_spawn_file_actions_destroy(&actions);
  if (rv != 0) {
    result.stderr_text = "chaos: cannot start " + argv[0];
    return result;
  }
  int status = 0;
  while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {}
  result.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  result.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  std::ifstream in(stderr_file);
  std::stringstream text;
  text << in.rdbuf();
  result.stderr_text = text.str();
  return result;
}

std::string file_mismatch(const std::string& path, const soak::ServedFile& expected) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return "cannot read " + path;
  soak::BodyCheck check(soak::Expected{expected.size, expected.sha256, {}});
  char buffer[65536];
  while (in.read(buffer, sizeof buffer) || in.gcount() > 0) {
    check.add(std::as_bytes(std::span(buffer, static_cast<std::size_t>(in.gcount()))));
  }
  return check.mismatch();
}

}  // namespace sluice::chaos
