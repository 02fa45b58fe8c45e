// The __wrap_ functions the linker substitutes for the system calls of the library (see
// syscall_faults.hpp); each passes through to __real_ unless it is the call chosen
// to fail.
#include "syscall_faults.hpp"

#include <pthread.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstring>
#include <mutex>

namespace sluice::test {
namespace {

// Mutable state of the armed run; the HTTP thread writes it, the test thread reads
// it once the Client (and so that thread) is gone.
struct Injection {
  std::atomic<bool> armed{false};
  std::mutex mu;
  std::size_t fail_at = 0;  // guarded by mu
  InjectionReport report;   // guarded by mu
};

Injection& injection() {
  static Injection* state = new Injection;  // never destroyed: wrappers may run at exit
  return *state;
}

bool on_http_thread() {
  char name[16] = {};
  if (pthread_getname_np(pthread_self(), name, sizeof name) != 0) return false;
  return std::strcmp(name, "sluice-http") == 0;
}

// Counts this call when it is the HTTP thread's; true when it is the one to fail,
// and then errno is already `err`.
bool should_fail(const char* call, int err) {
  Injection& state = injection();
  if (!state.armed.load(std::memory_order_acquire) || !on_http_thread()) return false;
  std::lock_guard lock(state.mu);
  const std::size_t index = state.report.calls++;
  ++state.report.per_call[call];
  if (index != state.fail_at) return false;
  state.report.injected = InjectedFailure{call, err, index};
  errno = err;
  return true;
}

const char* epoll_ctl_name(int op) {
  switch (op) {
    case EPOLL_CTL_ADD: return "epoll_ctl(ADD)";
    case EPOLL_CTL_MOD: return "epoll_ctl(MOD)";
    default: return "epoll_ctl(DEL)";
  }
}

}  // namespace

void arm_injection(std::size_t fail_at) {
  Injection& state = injection();
  {
    std::lock_guard lock(state.mu);
    state.fail_at = fail_at;
    state.report = InjectionReport{};
  }
  state.armed.store(true, std::memory_order_release);
}

InjectionReport disarm_injection() {
  Injection& state = injection();
  state.armed.store(false, std::memory_order_release);
  std::lock_guard lock(state.mu);
  return state.report;
}

void mark_completion() {
  Injection& state = injection();
  if (!state.armed.load(std::memory_order_acquire)) return;
  std::lock_guard lock(state.mu);
  if (!state.report.completed_at) state.report.completed_at = state.report.calls;
}

}  // namespace sluice::test

using sluice::test::epoll_ctl_name;
using sluice::test::should_fail;

extern "C" {

int __real_socket(int domain, int type, int protocol);
int __real_connect(int fd, const sockaddr* address, socklen_t length);
int __real_getsockopt(int fd, int level, int name, void* value, socklen_t* length);
int __real_setsockopt(int fd, int level, int name, const void* value, socklen_t length);
int __real_getsockname(int fd, sockaddr* address, socklen_t* length);
ssize_t __real_recv(int fd, void* data, size_t size, int flags);
ssize_t __real_send(int fd, const void* data, size_t size, int flags);
ssize_t __real_sendmsg(int fd, const msghdr* message, int flags);
int __real_sendmmsg(int fd, mmsghdr* messages, unsigned count, int flags);
int __real_recvmmsg(int fd, mmsghdr* messages, unsigned count, int flags, timespec* timeout);
ssize_t __real_read(int fd, void* data, size_t size);
int __real_epoll_ctl(int epoll_fd, int op, int fd, epoll_event* event);
int __real_epoll_wait(int epoll_fd, epoll_event* events, int count, int timeout_ms);

// Out of buffer space: what socket() reports under memory pressure.
int __wrap_socket(int domain, int type, int protocol) {
  if (should_fail("socket", ENOBUFS)) return -1;
  return __real_socket(domain, type, protocol);
}

// Refused at once: what a non-blocking connect to a closed loopback port may say.
int __wrap_connect(int fd, const sockaddr* address, socklen_t length) {
  if (should_fail("connect", ECONNREFUSED)) return -1;
  return __real_connect(fd, address, length);
}

// SO_ERROR is how a non-blocking connect reports failure: the call succeeds and the
// value says ECONNREFUSED. Any other option fails outright with ENOBUFS.
int __wrap_getsockopt(int fd, int level, int name, void* value, socklen_t* length) {
  const bool so_error = level == SOL_SOCKET && name == SO_ERROR;
  if (should_fail(so_error ? "getsockopt(SO_ERROR)" : "getsockopt",
                  so_error ? ECONNREFUSED : ENOBUFS)) {
    if (!so_error) return -1;
    const int rv = __real_getsockopt(fd, level, name, value, length);
    if (rv == 0) *static_cast<int*>(value) = ECONNREFUSED;
    return rv;
  }
  return __real_getsockopt(fd, level, name, value, length);
}

int __wrap_setsockopt(int fd, int level, int name, const void* value, socklen_t length) {
  if (should_fail("setsockopt", ENOMEM)) return -1;
  return __real_setsockopt(fd, level, name, value, length);
}

int __wrap_getsockname(int fd, sockaddr* address, socklen_t* length) {
  if (should_fail("getsockname", ENOBUFS)) return -1;
  return __real_getsockname(fd, address, length);
}

// The peer reset the connection.
ssize_t __wrap_recv(int fd, void* data, size_t size, int flags) {
  if (should_fail("recv", ECONNRESET)) return -1;
  return __real_recv(fd, data, size, flags);
}

ssize_t __wrap_send(int fd, const void* data, size_t size, int flags) {
  if (should_fail("send", ECONNRESET)) return -1;
  return __real_send(fd, data, size, flags);
}

// UDP (QUIC): an ICMP port unreachable surfaces as ECONNREFUSED on the next call.
ssize_t __wrap_sendmsg(int fd, const msghdr* message, int flags) {
  if (should_fail("sendmsg", ECONNREFUSED)) return -1;
  return __real_sendmsg(fd, message, flags);
}

int __wrap_sendmmsg(int fd, mmsghdr* messages, unsigned count, int flags) {
  if (should_fail("sendmmsg", ECONNREFUSED)) return -1;
  return __real_sendmmsg(fd, messages, count, flags);
}

int __wrap_recvmmsg(int fd, mmsghdr* messages, unsigned count, int flags, timespec* timeout) {
  if (should_fail("recvmmsg", ECONNREFUSED)) return -1;
  return __real_recvmmsg(fd, messages, count, flags, timeout);
}

// On the HTTP thread read() touches only the event loop's eventfd, whose read fails
// with EAGAIN when its counter is zero (a spurious wake-up). write() is not wrapped:
// the loop writes 1 to the eventfd once per sleep, and an eventfd write fails only
// when the counter would pass 2^64 - 2, which cannot happen.
ssize_t __wrap_read(int fd, void* data, size_t size) {
  if (should_fail("read", EAGAIN)) return -1;
  return __real_read(fd, data, size);
}

// ADD and MOD fail for want of kernel memory; DEL of an fd the kernel already
// dropped says ENOENT.
int __wrap_epoll_ctl(int epoll_fd, int op, int fd, epoll_event* event) {
  if (should_fail(epoll_ctl_name(op), op == EPOLL_CTL_DEL ? ENOENT : ENOMEM)) return -1;
  return __real_epoll_ctl(epoll_fd, op, fd, event);
}

// A signal arrived: the one failure epoll_wait has in a correct program.
int __wrap_epoll_wait(int epoll_fd, epoll_event* events, int count, int timeout_ms) {
  if (should_fail("epoll_wait", EINTR)) return -1;
  return __real_epoll_wait(epoll_fd, events, count, timeout_ms);
}

}  // extern "C"
