#include "response_body.hpp"

#include <string>
#include <utility>

#include "exchange.hpp"
#include "js_error.hpp"
#include "napi_util.hpp"
#include "node_client.hpp"

namespace sluice_node {

ResponseBody::~ResponseBody() { sluice_response_free(response_); }

napi_value ResponseBody::pull(napi_env env) {
  if (pull_ != nullptr) throw_error(env, "a read of this body is already waiting");
  if (response_ == nullptr || dropped_) throw_type_error(env, "the response has no body to read");
  napi_value promise = nullptr;
  check(env, napi_create_promise(env, &pull_, &promise));
  exchange_.client().await_begin();
  if (holding_) {
    holding_ = false;
    settle(true, uint8_array(env, held_));
    held_ = {};
    return promise;
  }
  if (ended_) {
    settle_with_end();
    return promise;
  }
  start_or_resume(env);
  return promise;
}

void ResponseBody::start_or_resume(napi_env env) noexcept {
  // On a freed client both calls run the callbacks here, before they return: the
  // pull waiting above is what they settle.
  sluice_code code = SLUICE_OK;
  if (!started_) {
    started_ = true;
    code = sluice_response_on_data(response_, &ResponseBody::on_data, &ResponseBody::on_end, this);
  } else {
    code = sluice_response_resume(response_);
  }
  if (code != SLUICE_OK) {
    const std::string message = sluice_last_error();
    fail_pull(code, message);
    return;
  }
  // The resume queued the next delivery for this thread: run it now rather than
  // after a turn of the loop.
  exchange_.client().dispatch_now();
}

int ResponseBody::on_data(void* user_data, const std::uint8_t* data, std::size_t len) noexcept {
  return static_cast<ResponseBody*>(user_data)->take_piece(data, len);
}

void ResponseBody::on_end(void* user_data, sluice_code code) noexcept {
  auto* body = static_cast<ResponseBody*>(user_data);
  auto keep = body->exchange_.shared_from_this();  // retiring may drop the last reference
  body->take_end(code);
}

int ResponseBody::take_piece(const std::uint8_t* data, std::size_t len) noexcept {
  if (abandoned_) return 1;  // nobody reads: let the rest drain so the end comes
  if (len == 0) return 1;
  if (pull_ == nullptr) {
    // A delivery that was queued before the pause: keep this one piece, pause.
    try {
      held_.insert(held_.end(), data, data + len);
      holding_ = true;
    } catch (...) {
      fail_pull(SLUICE_E_OUT_OF_MEMORY, "out of memory holding a body piece");
    }
    return 0;
  }
  napi_handle_scope scope = nullptr;
  if (napi_open_handle_scope(exchange_.env(), &scope) != napi_ok) return 0;
  try {
    settle(true, uint8_array(exchange_.env(), {data, len}));
  } catch (...) {
    clear_pending_exception(exchange_.env());
  }
  napi_close_handle_scope(exchange_.env(), scope);
  return 0;  // the next piece waits for the next pull
}

void ResponseBody::take_end(sluice_code code) noexcept {
  ended_ = true;
  end_code_ = code;
  if (code != SLUICE_OK) end_message_ = sluice_last_error();
  if (pull_ != nullptr && !holding_) settle_with_end();
  exchange_.retire_if_done();
}

void ResponseBody::settle_with_end() noexcept {
  napi_env env = exchange_.env();
  napi_handle_scope scope = nullptr;
  if (napi_open_handle_scope(env, &scope) != napi_ok) return;
  try {
    if (end_code_ == SLUICE_OK) {
      settle(true, null_value(env));
    } else {
      settle(false, sluice_error(env, end_code_, end_message_));
    }
  } catch (...) {
    clear_pending_exception(env);
  }
  napi_close_handle_scope(env, scope);
}

void ResponseBody::settle(bool resolve, napi_value value) noexcept {
  napi_deferred pull = std::exchange(pull_, nullptr);
  if (pull == nullptr) return;
  napi_env env = exchange_.env();
  const napi_status status =
      resolve ? napi_resolve_deferred(env, pull, value) : napi_reject_deferred(env, pull, value);
  if (status != napi_ok) clear_pending_exception(env);
  exchange_.client().await_end();
}

void ResponseBody::fail_pull(sluice_code code, std::string_view message) noexcept {
  if (pull_ == nullptr) return;
  napi_env env = exchange_.env();
  napi_handle_scope scope = nullptr;
  if (napi_open_handle_scope(env, &scope) != napi_ok) return;
  try {
    settle(false, sluice_error(env, code, message));
  } catch (...) {
    clear_pending_exception(env);
  }
  napi_close_handle_scope(env, scope);
}

void ResponseBody::abandon() noexcept {
  abandoned_ = true;
  held_ = {};
  holding_ = false;
  if (!started_) {
    drop();
    return;
  }
  // A paused body delivers its rest, and then its end, only after a resume.
  if (!ended_) sluice_response_resume(response_);
}

void ResponseBody::drop() noexcept {
  if (started_) return;  // callbacks own it now: it ends through on_end
  dropped_ = true;
  // Freeing the response lets a short body complete and its connection be reused.
  sluice_response_free(std::exchange(response_, nullptr));
}

}  // namespace sluice_node
