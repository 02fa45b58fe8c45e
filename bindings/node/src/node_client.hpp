#pragma once
// NodeClient: one sluice_client in host-dispatch mode, run by the Node loop.
//
// JS thread only. Shared ownership: the JS Client handle holds one reference and
// every Exchange one (so an Exchange that outlives its Client never dangles); the
// live set holds each Exchange from its send until the library's last callback for
// it. That cycle is meant: it is what keeps a callback's user_data alive, and it
// ends at the last callback or at close().
//
// The dispatch fd is watched with a uv_poll_t; every library callback runs inside
// sluice_client_dispatch() on this thread, where the callbacks only settle promises
// (no JS runs inside dispatch). The poll handle is referenced while JS awaits
// something of this client (a head, a body chunk, a writable upload), and only then,
// so an idle client never keeps the process alive.

#include <node_api.h>

#include <cstddef>
#include <memory>
#include <unordered_map>

#include "loop_watch.hpp"
#include "sluice/sluice.h"

namespace sluice_node {

class Exchange;

class NodeClient : public std::enable_shared_from_this<NodeClient> {
 public:
  /// Makes the sluice client from `options` (a JS object, see client_options.hpp)
  /// and starts watching its dispatch fd. Throws on failure.
  static std::shared_ptr<NodeClient> create(napi_env env, napi_value options);
  ~NodeClient();
  NodeClient(const NodeClient&) = delete;
  NodeClient& operator=(const NodeClient&) = delete;

  /// Stops watching, then frees the sluice client: what is in flight ends with
  /// SLUICE_E_CANCELLED through the callbacks, which run in here. Idempotent. Never
  /// from a library callback.
  void close() noexcept;
  bool open() const noexcept { return client_ != nullptr; }
  sluice_client* handle() const noexcept { return client_; }
  napi_env env() const noexcept { return env_; }

  /// The live set: an Exchange stays alive from its send until it retires.
  void adopt(std::shared_ptr<Exchange> exchange);
  void retire(Exchange* exchange) noexcept;

  /// Something JS awaits begins or ends: the loop is referenced while any does.
  void await_begin() noexcept;
  void await_end() noexcept;

  /// Runs the waiting callbacks now, from a JS call (a resume or a when_writable
  /// queued its delivery for this thread: no need to wait for a loop turn). Not
  /// re-entered: inside a dispatch it does nothing.
  void dispatch_now() noexcept;

  /// sluice_client_get_stats as a JS object.
  napi_value stats(napi_env env);

 private:
  NodeClient(napi_env env, sluice_client* client);
  static void on_readable(void* data) noexcept;
  void dispatch_from_loop() noexcept;

  napi_env env_;
  sluice_client* client_;
  LoopWatch watch_;
  napi_async_context async_context_ = nullptr;
  napi_ref resource_ = nullptr;  // the async resource the loop's callbacks run under
  std::size_t awaiting_ = 0;
  bool dispatching_ = false;
  std::unordered_map<Exchange*, std::shared_ptr<Exchange>> live_;
};

}  // namespace sluice_node
