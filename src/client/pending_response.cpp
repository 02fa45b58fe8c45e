#include "client/pending_state.hpp"

#include "body/staging_buffer.hpp"
#include "client/client_core.hpp"
#include "client/fetch/transfer.hpp"

namespace sluice {

void PendingState::decide(Result<Response> result) {
  std::unique_lock lock(mu);
  if (outcome || taken) return;
  if (then) {
    auto callback = std::move(then);
    taken = true;
    lock.unlock();
    if (host) {
      auto shared = std::make_shared<Result<Response>>(std::move(result));
      host->post([callback = std::move(callback), shared] { callback(std::move(*shared)); });
    } else {
      callback(std::move(result));
    }
    return;
  }
  outcome.emplace(std::move(result));
  lock.unlock();
  decided_cv.notify_all();
}

void PendingState::set_body(std::shared_ptr<StagingBuffer> staging) {
  std::lock_guard lock(mu);
  body = std::move(staging);
}

namespace {
Error cancelled_error(const std::string& reason) {
  return Error(ErrorCode::cancelled,
               reason.empty() ? std::string("request cancelled") : "request cancelled: " + reason);
}
}  // namespace

void PendingState::cancel_request(const std::string& reason) {
  std::shared_ptr<StagingBuffer> staging;
  {
    std::lock_guard lock(mu);
    staging = body;
  }
  if (staging) staging->fail(cancelled_error(reason));
  post_cancel(reason);
}

void PendingState::post_cancel(const std::string& reason) const {
  if (!poster || transfer.expired()) return;
  poster->post([weak = transfer, error = cancelled_error(reason)] {
    if (auto self = weak.lock()) self->fail(error);
  });
}

PendingResponse::PendingResponse(std::shared_ptr<PendingState> state) : state_(std::move(state)) {}

PendingResponse& PendingResponse::operator=(PendingResponse&& other) noexcept {
  if (this != &other) {
    abandon();
    state_ = std::move(other.state_);
  }
  return *this;
}

PendingResponse::~PendingResponse() { abandon(); }

// Nobody will take the response: drop a decided one (its reader closes, so its
// connection is freed or reused) or cancel the request still in flight.
void PendingResponse::abandon() noexcept {
  if (!state_) return;
  std::optional<Result<Response>> dropped;
  bool cancel_it = false;
  {
    std::lock_guard lock(state_->mu);
    if (!state_->taken && !state_->then) {
      state_->taken = true;
      dropped = std::move(state_->outcome);
      state_->outcome.reset();
      cancel_it = !dropped.has_value();
    }
  }
  if (cancel_it) state_->post_cancel();
  state_.reset();
}

namespace {
Error no_state() { return Error(ErrorCategory::usage, "this PendingResponse holds no request"); }
Error taken_twice() {
  return Error(ErrorCategory::usage, "the response was already taken (wait or then called twice)");
}
}  // namespace

Result<Response> PendingResponse::wait() {
  if (!state_) return no_state();
  std::unique_lock lock(state_->mu);
  state_->decided_cv.wait(lock, [this] { return state_->outcome.has_value() || state_->taken; });
  if (!state_->outcome) return taken_twice();
  state_->taken = true;
  Result<Response> result = std::move(*state_->outcome);
  state_->outcome.reset();
  return result;
}

std::optional<Result<Response>> PendingResponse::wait_for(std::chrono::milliseconds timeout) {
  if (!state_) return Result<Response>(no_state());
  std::unique_lock lock(state_->mu);
  if (!state_->decided_cv.wait_for(
          lock, timeout, [this] { return state_->outcome.has_value() || state_->taken; })) {
    return std::nullopt;
  }
  if (!state_->outcome) return Result<Response>(taken_twice());
  state_->taken = true;
  Result<Response> result = std::move(*state_->outcome);
  state_->outcome.reset();
  return result;
}

// The callback runs on the HTTP thread whichever way: decide() calls it there, and a
// response decided before then() is handed over by a post. Only a Client already
// gone leaves this thread to run it.
RequestHandle PendingResponse::then(std::function<void(Result<Response>)> done) && {
  std::shared_ptr<PendingState> state = std::move(state_);
  if (!state) {
    done(no_state());
    return RequestHandle();
  }
  std::unique_lock lock(state->mu);
  if (state->taken) {
    lock.unlock();
    done(taken_twice());
    return RequestHandle(std::move(state));
  }
  if (!state->outcome) {
    state->then = std::move(done);
    return RequestHandle(std::move(state));
  }
  state->taken = true;
  auto result = std::make_shared<Result<Response>>(std::move(*state->outcome));
  state->outcome.reset();
  lock.unlock();
  auto task = [done, result] { done(std::move(*result)); };
  if (state->host) {
    state->host->post(std::move(task));
  } else if (!state->poster || !state->poster->post(task)) {
    task();
  }
  return RequestHandle(std::move(state));
}

void PendingResponse::cancel(const std::string& reason) {
  if (state_) state_->cancel_request(reason);
}

RequestHandle::RequestHandle(std::shared_ptr<PendingState> state) : state_(std::move(state)) {}

void RequestHandle::cancel(const std::string& reason) {
  if (state_) state_->cancel_request(reason);
}

}  // namespace sluice
