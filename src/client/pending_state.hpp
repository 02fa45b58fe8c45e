#pragma once
// PendingState: the promise behind a PendingResponse. Decided once, on the HTTP
// thread, with a Response or an Error.
// Thread-safety: any thread; guarded by mu_.

#include <condition_variable>
#include <functional>
#include <mutex>
#include <optional>

#include "sluice/response.hpp"

namespace sluice {

struct PendingState {
  std::mutex mu;
  std::condition_variable decided_cv;
  std::optional<Result<Response>> outcome;                 // guarded by mu
  std::function<void(Result<Response>)> then;              // guarded by mu
  bool taken = false;                                      // guarded by mu
  /// Posts a cancel of the transfer to the HTTP thread. Set before the state is shared.
  std::function<void()> cancel;

  /// HTTP thread (or send() for early failures). Ignored after the first call.
  void decide(Result<Response> result);
};

}  // namespace sluice
