#include "exchange.hpp"

#include <string>
#include <utility>

#include "js_error.hpp"
#include "napi_util.hpp"
#include "node_client.hpp"

namespace sluice_node {

Exchange::Exchange(std::shared_ptr<NodeClient> client)
    : client_(std::move(client)), env_(client_->env()), body_(*this), upload_(*this) {}

Exchange::~Exchange() {
  // The body and the upload free their handles in their own destructors; the
  // pending handle goes last (freeing it cancels a request nobody waited for). A
  // head promise still pending here (the client went away under a head that never
  // came) is left unsettled: its Exchange was unreachable, so nobody awaits it.
  sluice_pending_free(pending_);
}

napi_value Exchange::send(napi_env env, sluice_request* request, sluice_body_writer* writer) {
  upload_.attach(writer);  // owned from here, whatever happens next
  if (!client_->open()) throw_error(env, "the client is closed");
  napi_value promise = nullptr;
  check(env, napi_create_promise(env, &head_, &promise));
  const sluice_code code =
      sluice_client_send_cb(client_->handle(), request, &Exchange::on_response, this, &pending_);
  if (code != SLUICE_OK) {
    const std::string message = sluice_last_error();
    check(env, napi_reject_deferred(env, std::exchange(head_, nullptr),
                                    sluice_error(env, code, message)));
    head_settled_ = true;
    return promise;
  }
  client_->adopt(shared_from_this());
  client_->await_begin();
  return promise;
}

void Exchange::on_response(void* user_data, sluice_code code, sluice_response* response) noexcept {
  auto* exchange = static_cast<Exchange*>(user_data);
  auto self = exchange->shared_from_this();  // retiring may drop the last reference
  exchange->settle_head(code, response);
}

void Exchange::settle_head(sluice_code code, sluice_response* response) noexcept {
  const std::string message = code == SLUICE_OK ? std::string() : sluice_last_error();
  head_settled_ = true;
  if (response != nullptr) body_.attach(response);
  client_->await_end();
  napi_deferred head = std::exchange(head_, nullptr);
  napi_handle_scope scope = nullptr;
  if (head != nullptr && napi_open_handle_scope(env_, &scope) == napi_ok) {
    try {
      if (code == SLUICE_OK) {
        check(env_, napi_resolve_deferred(env_, head, head_object(env_, response)));
      } else {
        check(env_, napi_reject_deferred(env_, head, sluice_error(env_, code, message)));
      }
    } catch (...) {
      clear_pending_exception(env_);  // out of memory or teardown: nobody to tell
    }
    napi_close_handle_scope(env_, scope);
  }
  if (code != SLUICE_OK) fail_waiters(code, message);
  retire_if_done();
}

napi_value Exchange::head_object(napi_env env, sluice_response* response) {
  napi_value head = nullptr;
  check(env, napi_create_object(env, &head));
  set_property(env, head, "status", number(env, sluice_response_status(response)));
  set_property(env, head, "version", number(env, sluice_response_http_version(response)));
  set_property(env, head, "redirects", number(env, sluice_response_redirects(response)));
  const char* url = nullptr;
  std::size_t url_len = 0;
  check_sluice(env, sluice_response_effective_url(response, &url, &url_len));
  set_property(env, head, "url", utf8(env, {url, url_len}));
  const std::size_t count = sluice_response_header_count(response);
  napi_value headers = nullptr;
  check(env, napi_create_array_with_length(env, count * 2, &headers));
  for (std::size_t i = 0; i < count; ++i) {
    const char* name = nullptr;
    const char* value = nullptr;
    std::size_t name_len = 0;
    std::size_t value_len = 0;
    check_sluice(env, sluice_response_header(response, i, &name, &name_len, &value, &value_len));
    check(env, napi_set_element(env, headers, static_cast<std::uint32_t>(2 * i),
                                latin1(env, {name, name_len})));
    check(env, napi_set_element(env, headers, static_cast<std::uint32_t>(2 * i + 1),
                                latin1(env, {value, value_len})));
  }
  set_property(env, head, "headers", headers);
  return head;
}

void Exchange::cancel(std::string_view reason) noexcept {
  if (cancelled_ || pending_ == nullptr) return;
  cancelled_ = true;
  sluice_pending_cancel(pending_, reason.data(), reason.size());
}

void Exchange::abandon() noexcept {
  if (!head_settled_) {
    cancel("the fetch was garbage-collected");
    return;  // the head callback retires it
  }
  if (!body_.finished()) cancel("the response was garbage-collected");
  upload_.abort("the fetch was garbage-collected");
  body_.abandon();
  retire_if_done();
}

void Exchange::drop_body() noexcept {
  body_.drop();
  retire_if_done();
}

void Exchange::retire_if_done() noexcept {
  if (!head_settled_ || !body_.finished()) return;
  // An upload still waiting for room hears no more from the library once the
  // exchange is over (it drops the writable callback of an ended request).
  upload_.fail_wait(SLUICE_E_CANCELLED, "the exchange ended before its request body was sent");
  client_->retire(this);
}

void Exchange::fail_waiters(sluice_code code, std::string_view message) noexcept {
  upload_.fail_wait(code, message);
  body_.fail_pull(code, message);
}

}  // namespace sluice_node
