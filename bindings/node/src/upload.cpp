#include "upload.hpp"

#include <string>
#include <utility>

#include "exchange.hpp"
#include "js_error.hpp"
#include "napi_util.hpp"
#include "node_client.hpp"

namespace sluice_node {

Upload::~Upload() { sluice_body_writer_free(writer_); }

sluice_body_writer* Upload::require_writer(napi_env env) {
  if (writer_ == nullptr) throw_type_error(env, "the request has no streamed body");
  return writer_;
}

napi_value Upload::when_writable(napi_env env) {
  sluice_body_writer* writer = require_writer(env);
  if (writable_ != nullptr) throw_error(env, "a wait for the request body is already pending");
  napi_value promise = nullptr;
  check(env, napi_create_promise(env, &writable_, &promise));
  exchange_.client().await_begin();
  auto* token = new std::weak_ptr<Exchange>(exchange_.weak_from_this());
  const sluice_code code = sluice_body_writer_when_writable(writer, &Upload::on_writable, token);
  if (code != SLUICE_OK) {
    delete token;
    const std::string message = sluice_last_error();
    fail_wait(code, message);
    return promise;
  }
  // Below the mark, the callback is queued for this thread already: run it now.
  exchange_.client().dispatch_now();
  return promise;
}

void Upload::on_writable(void* user_data) noexcept {
  auto* token = static_cast<std::weak_ptr<Exchange>*>(user_data);
  std::shared_ptr<Exchange> exchange = token->lock();
  delete token;
  if (exchange) exchange->upload().settle_writable();
}

void Upload::settle_writable() noexcept {
  napi_deferred writable = std::exchange(writable_, nullptr);
  if (writable == nullptr) return;
  napi_env env = exchange_.env();
  napi_handle_scope scope = nullptr;
  if (napi_open_handle_scope(env, &scope) == napi_ok) {
    napi_value nothing = nullptr;
    if (napi_get_undefined(env, &nothing) != napi_ok ||
        napi_resolve_deferred(env, writable, nothing) != napi_ok) {
      clear_pending_exception(env);
    }
    napi_close_handle_scope(env, scope);
  }
  exchange_.client().await_end();
}

bool Upload::write(napi_env env, std::span<const std::uint8_t> bytes) {
  sluice_body_writer* writer = require_writer(env);
  const sluice_code code = sluice_body_writer_write_timeout(writer, bytes.data(), bytes.size(), 0);
  if (code == SLUICE_WOULD_BLOCK) return false;
  check_sluice(env, code);
  return true;
}

void Upload::close(napi_env env) {
  check_sluice(env, sluice_body_writer_close(require_writer(env)));
}

void Upload::abort(std::string_view reason) noexcept {
  if (writer_ != nullptr) sluice_body_writer_abort(writer_, reason.data(), reason.size());
}

void Upload::fail_wait(sluice_code code, std::string_view message) noexcept {
  napi_deferred writable = std::exchange(writable_, nullptr);
  if (writable == nullptr) return;
  napi_env env = exchange_.env();
  napi_handle_scope scope = nullptr;
  if (napi_open_handle_scope(env, &scope) == napi_ok) {
    try {
      check(env, napi_reject_deferred(env, writable, sluice_error(env, code, message)));
    } catch (...) {
      clear_pending_exception(env);
    }
    napi_close_handle_scope(env, scope);
  }
  exchange_.client().await_end();
}

}  // namespace sluice_node
