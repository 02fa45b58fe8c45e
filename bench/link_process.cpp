// LinkProcess: fork, the child's life (start links, report the port, wait, report
// the counters), and the parent's side of both pipes.

#include "bench/link_process.hpp"

#include <fcntl.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <string>
#include <type_traits>

#include "bench/link_socket.hpp"

namespace sluice::bench {
namespace {

// The child's first message: its port, or (port 0) why the links did not start.
struct Hello {
  std::uint16_t port = 0;
  char error[240] = {};
};

static_assert(std::is_trivially_copyable_v<Hello>);
static_assert(std::is_trivially_copyable_v<LinkReport>);

bool write_all(int fd, const void* data, std::size_t size) {
  const auto* bytes = static_cast<const char*>(data);
  while (size > 0) {
    const ssize_t n = ::write(fd, bytes, size);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return false;
    bytes += n;
    size -= static_cast<std::size_t>(n);
  }
  return true;
}

bool read_all(int fd, void* data, std::size_t size) {
  auto* bytes = static_cast<char*>(data);
  while (size > 0) {
    const ssize_t n = ::read(fd, bytes, size);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return false;
    bytes += n;
    size -= static_cast<std::size_t>(n);
  }
  return true;
}

double cpu_seconds_of_self() {
  rusage usage{};
  ::getrusage(RUSAGE_SELF, &usage);
  auto seconds = [](const timeval& tv) {
    return static_cast<double>(tv.tv_sec) + static_cast<double>(tv.tv_usec) / 1e6;
  };
  return seconds(usage.ru_utime) + seconds(usage.ru_stime);
}

// Blocks until the parent closes its end (or dies).
void wait_for_end_of_file(int fd) {
  char byte = 0;
  for (;;) {
    const ssize_t n = ::read(fd, &byte, 1);
    if (n == 0 || (n < 0 && errno != EINTR)) return;
  }
}

// The child: never returns. _exit, not exit: the parent's stdio buffers and atexit
// handlers are the parent's.
[[noreturn]] void run_child(int control_fd, int report_fd, std::uint16_t target_port,
                            LinkShape shape, bool with_udp) {
  Result<DelayLinks> links = start_delay_links(target_port, shape, with_udp);
  Hello hello;
  if (links) {
    hello.port = links->port();
  } else {
    std::snprintf(hello.error, sizeof hello.error, "%s", links.error().message().c_str());
  }
  if (!write_all(report_fd, &hello, sizeof hello) || !links) ::_exit(1);
  wait_for_end_of_file(control_fd);
  LinkReport report;
  report.tcp = links->tcp->counters();
  report.with_udp = links->udp != nullptr;
  if (links->udp) report.udp = links->udp->counters();
  links->udp.reset();  // each joins its thread and closes its sockets
  links->tcp.reset();
  report.cpu_s = cpu_seconds_of_self();
  write_all(report_fd, &report, sizeof report);
  ::_exit(0);
}

}  // namespace

Result<LinkProcess> LinkProcess::start(std::uint16_t target_port, LinkShape shape, bool with_udp) {
  int control[2];
  int report[2];
  if (::pipe2(control, O_CLOEXEC) != 0) return link_error("cannot make a pipe");
  if (::pipe2(report, O_CLOEXEC) != 0) {
    Error error = link_error("cannot make a pipe");
    ::close(control[0]);
    ::close(control[1]);
    return error;
  }
  // Whatever stdout holds would otherwise be written twice, once by each process.
  std::fflush(stdout);
  std::fflush(stderr);
  const pid_t pid = ::fork();
  if (pid == 0) {
    ::close(control[1]);  // else the child would hold a write end and never see EOF
    ::close(report[0]);
    run_child(control[0], report[1], target_port, shape, with_udp);
  }
  ::close(control[0]);
  ::close(report[1]);
  if (pid < 0) {
    Error error = link_error("cannot fork the link process");
    ::close(control[1]);
    ::close(report[0]);
    return error;
  }
  LinkProcess process(pid, control[1], report[0], 0);
  Hello hello;
  if (!read_all(report[0], &hello, sizeof hello) || hello.port == 0) {
    return Error(ErrorCategory::io,
                 hello.error[0] != '\0' ? hello.error : "the link process ended at once");
  }
  process.port_ = hello.port;
  return process;
}

LinkProcess::LinkProcess(LinkProcess&& other) noexcept
    : pid_(other.pid_),
      control_fd_(other.control_fd_),
      report_fd_(other.report_fd_),
      port_(other.port_) {
  other.pid_ = -1;
  other.control_fd_ = -1;
  other.report_fd_ = -1;
}

LinkProcess::~LinkProcess() {
  if (pid_ > 0) {
    [[maybe_unused]] Result<LinkReport> ignored = stop();
  }
}

Result<LinkReport> LinkProcess::stop() {
  if (pid_ <= 0) return Error(ErrorCategory::usage, "delay link: stopped already");
  ::close(control_fd_);
  LinkReport report;
  const bool reported = read_all(report_fd_, &report, sizeof report);
  ::close(report_fd_);
  int status = 0;
  while (::waitpid(pid_, &status, 0) < 0 && errno == EINTR) {}
  pid_ = -1;
  control_fd_ = report_fd_ = -1;
  if (!reported) return Error(ErrorCategory::io, "the link process ended without a report");
  return report;
}

}  // namespace sluice::bench
