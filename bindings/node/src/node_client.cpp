#include "node_client.hpp"

#include <string>
#include <utility>

#include "client_options.hpp"
#include "exchange.hpp"
#include "js_error.hpp"
#include "napi_util.hpp"

namespace sluice_node {

std::shared_ptr<NodeClient> NodeClient::create(napi_env env, napi_value options) {
  OptionsPtr built = client_options_from(env, options);
  sluice_client* raw = nullptr;
  check_sluice(env, sluice_client_new(built.get(), &raw));
  std::shared_ptr<NodeClient> client(new NodeClient(env, raw));

  uv_loop_t* loop = nullptr;
  check(env, napi_get_uv_event_loop(env, &loop));
  napi_value resource = nullptr;
  check(env, napi_create_object(env, &resource));
  check(env, napi_create_reference(env, resource, 1, &client->resource_));
  check(env, napi_async_init(env, resource, utf8(env, "sluice.Client"), &client->async_context_));
  const int rv = client->watch_.start(loop, sluice_client_dispatch_fd(raw),
                                      &NodeClient::on_readable, client.get());
  if (rv != 0)
    throw_error(env, std::string("sluice: cannot watch the dispatch fd: ") + uv_strerror(rv));
  return client;
}

NodeClient::NodeClient(napi_env env, sluice_client* client) : env_(env), client_(client) {}

NodeClient::~NodeClient() {
  close();
  if (async_context_ != nullptr) napi_async_destroy(env_, async_context_);
  if (resource_ != nullptr) napi_delete_reference(env_, resource_);
}

void NodeClient::close() noexcept {
  if (client_ == nullptr) return;
  // The fd must leave the loop before the library closes it.
  watch_.close();
  sluice_client* client = std::exchange(client_, nullptr);
  // Keep this alive through the callbacks sluice_client_free runs: they retire
  // exchanges, and the last Exchange may hold the last reference to this. (Null in
  // the destructor, where no Exchange holds one any more.)
  auto self = weak_from_this().lock();
  sluice_client_free(client);
  // What did not retire (a body paused, or never read) no longer hears from the
  // library unless its reader resumes it, which works on a freed client too.
  auto live = std::exchange(live_, {});
  live.clear();
  awaiting_ = 0;
}

void NodeClient::adopt(std::shared_ptr<Exchange> exchange) {
  Exchange* key = exchange.get();
  live_.emplace(key, std::move(exchange));
}

void NodeClient::retire(Exchange* exchange) noexcept {
  auto found = live_.find(exchange);
  if (found == live_.end()) return;
  // Destroyed after the erase: its destructor must not see itself in the set.
  std::shared_ptr<Exchange> last = std::move(found->second);
  live_.erase(found);
}

void NodeClient::await_begin() noexcept {
  if (awaiting_++ == 0) watch_.ref();
}

void NodeClient::await_end() noexcept {
  if (awaiting_ == 0) return;  // after close() reset the count
  if (--awaiting_ == 0) watch_.unref();
}

void NodeClient::dispatch_now() noexcept {
  if (client_ == nullptr || dispatching_) return;
  dispatching_ = true;
  sluice_client_dispatch(client_, nullptr);
  dispatching_ = false;
}

void NodeClient::on_readable(void* data) noexcept {
  static_cast<NodeClient*>(data)->dispatch_from_loop();
}

void NodeClient::dispatch_from_loop() noexcept {
  if (client_ == nullptr) return;
  auto self = shared_from_this();  // a callback may retire the last Exchange holding this
  napi_handle_scope handles = nullptr;
  if (napi_open_handle_scope(env_, &handles) != napi_ok) return;
  // A callback scope: when it closes, Node runs the microtasks and nextTicks the
  // settled promises queued, as after any I/O callback.
  napi_value resource = nullptr;
  napi_callback_scope scope = nullptr;
  const bool scoped = napi_get_reference_value(env_, resource_, &resource) == napi_ok &&
                      napi_open_callback_scope(env_, resource, async_context_, &scope) == napi_ok;
  dispatch_now();
  if (scoped) napi_close_callback_scope(env_, scope);
  clear_pending_exception(env_);
  napi_close_handle_scope(env_, handles);
}

napi_value NodeClient::stats(napi_env env) {
  if (client_ == nullptr) throw_error(env, "the client is closed");
  sluice_client_stats stats{};
  check_sluice(env, sluice_client_get_stats(client_, &stats, sizeof stats));
  napi_value object = nullptr;
  check(env, napi_create_object(env, &object));
  auto put = [&](const char* name, double value) {
    set_property(env, object, name, number(env, value));
  };
  put("inFlight", static_cast<double>(stats.in_flight));
  put("pausedReceivers", static_cast<double>(stats.paused_receivers));
  put("stagedBytes", static_cast<double>(stats.staged_bytes));
  put("allowanceBytes", static_cast<double>(stats.allowance_bytes));
  put("requestBodyBytesHeld", static_cast<double>(stats.request_body_bytes_held));
  put("ownedUploadBytes", static_cast<double>(stats.owned_upload_bytes));
  put("connections", static_cast<double>(stats.connections));
  put("retainedScratchBytes", static_cast<double>(stats.retained_scratch_bytes));
  // Which transports the client used: h3 shows as QUIC handshakes.
  put("tlsFullHandshakes", static_cast<double>(stats.tls_full_handshakes));
  put("tlsResumedHandshakes", static_cast<double>(stats.tls_resumed_handshakes));
  put("quicFullHandshakes", static_cast<double>(stats.quic_full_handshakes));
  put("quicResumedHandshakes", static_cast<double>(stats.quic_resumed_handshakes));
  put("awaiting", static_cast<double>(awaiting_));
  put("live", static_cast<double>(live_.size()));
  return object;
}

}  // namespace sluice_node
