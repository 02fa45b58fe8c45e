#pragma once
// RequestBodySource implementations for the three kinds of request body: owned
// bytes, a file read on the file pool, and a stream written by a producer.
// Ownership: created on the user's thread in Client::send, then HTTP thread only.

#include <cstdint>
#include <functional>
#include <memory>
#include <string>

#include "connection/connection.hpp"
#include "sluice/request.hpp"

namespace sluice {

class WorkerPool;
class SourceQueue;
class UploadBudget;

/// Runs a task on the HTTP thread (from any thread).
using PostToHttpThread = std::function<void(std::function<void()>)>;

struct BodyEnvironment {
  PostToHttpThread post;
  WorkerPool* file_pool = nullptr;
  std::size_t release_threshold = 0;
  /// What owned bodies (BytesBody) count against until a transport took them whole
  /// (null: nothing); making one waits for room there when `may_wait_for_upload`.
  std::shared_ptr<UploadBudget> upload_budget;
  bool may_wait_for_upload = false;
  /// The owned bytes were acquired already (a PartsBody acquires its parts at once).
  bool upload_acquired = false;
  /// With host dispatch: where a BodyWriter's when_writable callback runs (posted to
  /// the host's queue). Null: on the HTTP thread.
  PostToHttpThread run_user;
};

/// Makes the source for a request's body; nullptr for no body. Opening a file happens
/// here, on the caller's thread, so a missing file fails at once with category io.
Result<std::unique_ptr<RequestBodySource>> make_body_source(RequestBody& body,
                                                            const BodyEnvironment& env);

}  // namespace sluice
