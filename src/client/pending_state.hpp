#pragma once
// PendingState: the promise behind a PendingResponse. Decided once, on the HTTP
// thread, with a Response or an Error.
// Thread-safety: any thread; guarded by mu.

#include <condition_variable>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <string>

#include "sluice/response.hpp"

namespace sluice {

class HostDispatch;
class HttpPoster;
class StagingBuffer;
class Transfer;

struct PendingState {
  std::mutex mu;
  std::condition_variable decided_cv;
  std::optional<Result<Response>> outcome;     // guarded by mu
  std::function<void(Result<Response>)> then;  // guarded by mu
  bool taken = false;                          // guarded by mu
  /// The decided response's body, so that a cancel fails it at once.
  std::shared_ptr<StagingBuffer> body;  // guarded by mu
  /// The HTTP thread's poster. Set before the state is shared: then() hands an
  /// already decided response to its callback through it, and cancels go through it.
  std::shared_ptr<HttpPoster> poster;
  /// With host dispatch, where then()'s callback runs (set with poster); else null.
  std::shared_ptr<HostDispatch> host;
  /// The transfer to cancel (it may be gone by the time a cancel runs). Set, with
  /// poster, before the state is shared; a request refused in send() has none.
  std::weak_ptr<Transfer> transfer;

  /// HTTP thread (or send() for early failures). Ignored after the first call.
  void decide(Result<Response> result);
  /// HTTP thread, just before deciding a response: its body's staging buffer.
  void set_body(std::shared_ptr<StagingBuffer> staging);
  /// Any thread. A body already under way fails now, on the caller's thread: reads
  /// after cancel() return what was staged before it and then category cancelled,
  /// however far the HTTP thread got meanwhile (it may be mid-receive, and a reader
  /// racing it could otherwise take the whole body). A body that already ended whole
  /// stays whole. Then the transfer's cancel goes to the HTTP thread.
  /// `reason` (may be empty) goes into the error's message: "request cancelled: ...".
  void cancel_request(const std::string& reason = {});
  /// Any thread: posts the transfer's cancel to the HTTP thread, if there is one.
  void post_cancel(const std::string& reason = {}) const;
};

}  // namespace sluice
