// One benchmark variant per forked child, its peak and figures back through a pipe.
// The pipe carries text lines: `figure NAME VALUE`, `peak BYTES`, `error MESSAGE`.

#include "bench/child_peak.hpp"

#include <cerrno>
#include <charconv>
#include <cstdio>
#include <cstring>
#include <string_view>

#include <fcntl.h>
#include <sys/wait.h>
#include <unistd.h>

#include "bench/rss.hpp"

namespace sluice::bench {
namespace {

Error io_error(std::string message) { return Error(ErrorCategory::io, std::move(message)); }

void write_fully(int fd, std::string_view text) {
  while (!text.empty()) {
    ssize_t rv = ::write(fd, text.data(), text.size());
    if (rv < 0 && errno == EINTR) continue;
    if (rv <= 0) return;  // the parent went away; nothing left to tell
    text.remove_prefix(static_cast<std::size_t>(rv));
  }
}

// The child's whole report as pipe text; one line per item, newlines in a message
// flattened so that a line stays a line.
std::string child_report_text(const Result<ChildFigures>& outcome) {
  if (!outcome) {
    std::string message = outcome.error().describe();
    for (char& c : message) c = c == '\n' ? ' ' : c;
    return "error " + message + "\n";
  }
  std::string text;
  char line[512];
  for (const auto& [name, value] : outcome.value()) {
    std::snprintf(line, sizeof line, "figure %s %.17g\n", name.c_str(), value);
    text += line;
  }
  Result<MemoryStatus> memory = read_memory_status();
  if (!memory) return "error " + memory.error().message() + "\n";
  text += "peak " + std::to_string(memory->hwm_bytes) + "\n";
  return text;
}

[[noreturn]] void run_child(int write_fd, const std::function<Result<ChildFigures>()>& variant) {
  reset_peak_rss();
  Result<ChildFigures> outcome = variant();
  write_fully(write_fd, child_report_text(outcome));
  ::close(write_fd);
  std::fflush(stdout);
  std::fflush(stderr);
  // _exit: the parent's atexit handlers and stdio buffers are the parent's business.
  ::_exit(outcome ? 0 : 1);
}

std::string read_all(int fd) {
  std::string text;
  char buffer[4096];
  for (;;) {
    ssize_t n = ::read(fd, buffer, sizeof buffer);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return text;
    text.append(buffer, static_cast<std::size_t>(n));
  }
}

Result<ChildReport> parse_report(std::string_view text) {
  ChildReport report;
  bool has_peak = false;
  while (!text.empty()) {
    std::size_t end = text.find('\n');
    std::string_view line = text.substr(0, end);
    text.remove_prefix(end == std::string_view::npos ? text.size() : end + 1);
    if (line.starts_with("error ")) return io_error(std::string(line.substr(6)));
    if (line.starts_with("peak ")) {
      std::string_view digits = line.substr(5);
      auto [ptr, ec] =
          std::from_chars(digits.data(), digits.data() + digits.size(), report.peak_rss_bytes);
      has_peak = ec == std::errc();
    } else if (line.starts_with("figure ")) {
      std::string_view rest = line.substr(7);
      std::size_t space = rest.find(' ');
      if (space == std::string_view::npos) continue;
      double value = 0;
      std::from_chars(rest.data() + space + 1, rest.data() + rest.size(), value);
      report.figures.emplace_back(std::string(rest.substr(0, space)), value);
    }
  }
  if (!has_peak) return io_error("the benchmark child reported no peak");
  return report;
}

std::string describe_exit(int status) {
  if (WIFSIGNALED(status)) {
    return std::string("killed by signal ") + std::to_string(WTERMSIG(status)) + " (" +
           strsignal(WTERMSIG(status)) + ")";
  }
  return "exit status " + std::to_string(WEXITSTATUS(status));
}

}  // namespace

double ChildReport::figure(const std::string& name) const {
  for (const auto& [figure_name, value] : figures) {
    if (figure_name == name) return value;
  }
  return 0;
}

bool reset_peak_rss() {
  int fd = ::open("/proc/self/clear_refs", O_WRONLY | O_CLOEXEC);
  if (fd < 0) return false;
  bool done = ::write(fd, "5", 1) == 1;
  ::close(fd);
  return done;
}

Result<ChildReport> run_in_child(const std::function<Result<ChildFigures>()>& variant) {
  int fds[2];
  if (::pipe2(fds, O_CLOEXEC) != 0) {
    return io_error(std::string("cannot create a pipe for the benchmark child: ") +
                    std::strerror(errno));
  }
  // Whatever the parent buffered would otherwise be printed twice.
  std::fflush(stdout);
  std::fflush(stderr);
  pid_t pid = ::fork();
  if (pid < 0) {
    ::close(fds[0]);
    ::close(fds[1]);
    return io_error(std::string("cannot fork the benchmark child: ") + std::strerror(errno));
  }
  if (pid == 0) {
    ::close(fds[0]);
    run_child(fds[1], variant);
  }
  ::close(fds[1]);
  std::string text = read_all(fds[0]);
  ::close(fds[0]);
  int status = 0;
  while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {}
  // A child that died without saying why (a crash, the OOM killer) is named by how.
  bool failed = !WIFEXITED(status) || WEXITSTATUS(status) != 0;
  if (failed && text.find("error ") == std::string::npos) {
    return io_error("the benchmark child failed: " + describe_exit(status));
  }
  return parse_report(text);
}

}  // namespace sluice::bench
