#pragma once
// Failure injection for the system calls the library makes, through the linker's
// --wrap (tests/fault_injection/CMakeLists.txt lists the calls): while armed, the calls made
// on the library's HTTP thread (named "sluice-http") are counted from 0, and the
// one numbered `fail_at` fails with an errno the kernel really returns for it. Calls
// on every other thread (the test, the in-process servers, "sluice-pool") pass
// through untouched, so the servers behave normally.
// Thread-safety: arm/disarm/injection_count from the test thread while no Client
// runs; the wrappers from any thread (guarded by a mutex inside).

#include <cstddef>
#include <map>
#include <optional>
#include <string>

namespace sluice::test {

/// The call that was failed, and where it was in the run.
struct InjectedFailure {
  std::string call;  ///< "recv", "epoll_ctl(MOD)", ...
  int err = 0;       ///< the errno it returned
  std::size_t index = 0;
};

/// What one armed run saw.
struct InjectionReport {
  std::optional<InjectedFailure> injected;  ///< empty: the run made fewer calls
  std::size_t calls = 0;                    ///< HTTP-thread calls counted in all
  std::map<std::string, std::size_t> per_call;
  /// The count of calls made when mark_completion() ran (on the HTTP thread), if it did.
  std::optional<std::size_t> completed_at;
};

/// Starts counting HTTP-thread calls from 0 and fails the one numbered `fail_at`.
void arm_injection(std::size_t fail_at);
/// Stops injecting and counting; returns what the run saw.
InjectionReport disarm_injection();
/// Records how many calls the HTTP thread had made when the exchange completed; call
/// it on the HTTP thread (a trace line or an on_end callback), first time wins.
void mark_completion();

}  // namespace sluice::test
