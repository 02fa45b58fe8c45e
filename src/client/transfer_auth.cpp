// Transfer's answer to a 401 (Authentication::digest and ::any): beside the redirect
// handling it resembles, since both drop a response's body and send again.
#include "body/progress_source.hpp"
#include "client/client_core.hpp"
#include "client/transfer.hpp"

namespace sluice {

bool Transfer::start_auth_retry(const ResponseHead& head) {
  // Digest auth-int hashes the body: known when there is none or it is in memory.
  const std::optional<std::string_view> entity_body =
      body_ ? body_->whole_in_memory() : std::optional<std::string_view>(std::string_view());
  auto answer = auth_.answer(head.headers, method_, url_.target(), entity_body);
  if (!answer) return false;
  if (!*answer) {
    fail(std::move(*answer).error());
    return true;
  }
  auth_header_ = std::move(**answer);
  resend_for_auth_ = true;
  redirect_body_bytes_ = 0;
  phase_ = Phase::redirect_body;
  return true;
}

void Transfer::resend_authenticated() {
  resend_for_auth_ = false;
  // Rewound only now: until the 401's exchange ended its connection may still send.
  if (body_ && !body_->rewind()) {
    fail(Error(ErrorCategory::usage,
               "authentication: " + url_.to_string() + " answered 401 asking for " +
                   auth_.last_scheme() +
                   " credentials, but the request body cannot be sent again (a streamed "
                   "body, or a large body already freed after sending); send it as bytes "
                   "or a file, or use Basic authentication, which needs no second send"));
    return;
  }
  if (core_.trace().on()) {
    core_.trace().emit("auth: 401 from " + url_.origin() + ", sending again with " +
                       auth_.last_scheme());
  }
  queue_for_connection();
}

}  // namespace sluice
