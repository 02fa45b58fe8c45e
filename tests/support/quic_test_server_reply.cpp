// What QuicTestServer sends back: QuicTestResponse's makers, QuicTestRequest's
// lookups and ReplyBody (see quic_test_server_reply.hpp).

#include "support/quic_test_server_reply.hpp"

#include <algorithm>

namespace sluice::test {
namespace {

// Generated body is made in pieces of this size as nghttp3 asks for it; one pull
// hands out at most this much, so a large body is never made ahead of the window.
constexpr std::size_t kPiece = 32 * 1024;

// An answer that is no response: its action and the code it carries.
QuicTestResponse fault(QuicTestAction action, std::uint64_t app_error) {
  QuicTestResponse response;
  response.action = action;
  response.app_error = app_error;
  return response;
}

}  // namespace

std::string QuicTestRequest::header(std::string_view name) const {
  const auto value = headers.get(name);
  return value ? std::string(*value) : std::string();
}

QuicTestResponse QuicTestResponse::text(std::string body, int status) {
  QuicTestResponse response;
  response.status = status;
  response.body = std::move(body);
  return response;
}

QuicTestResponse QuicTestResponse::generated(std::uint64_t size, std::uint64_t seed) {
  QuicTestResponse response;
  response.body = GeneratedBody{size, seed};
  return response;
}

QuicTestResponse QuicTestResponse::reset_before_headers(std::uint64_t app_error) {
  return fault(QuicTestAction::reset_before_headers, app_error);
}

QuicTestResponse QuicTestResponse::reset_mid_body(std::uint64_t size, std::uint64_t after,
                                                  std::uint64_t app_error) {
  QuicTestResponse response = generated(size);
  response.action = QuicTestAction::reset_mid_body;
  response.reset_after = after;
  response.app_error = app_error;
  return response;
}

QuicTestResponse QuicTestResponse::reset_mid_headers(std::uint64_t after, std::uint64_t app_error) {
  QuicTestResponse response = fault(QuicTestAction::reset_mid_headers, app_error);
  response.reset_after = after;
  return response;
}

QuicTestResponse QuicTestResponse::close_connection(std::uint64_t app_error) {
  return fault(QuicTestAction::close_connection, app_error);
}

QuicTestResponse QuicTestResponse::close_with_transport_error(std::uint64_t code,
                                                              std::string reason) {
  QuicTestResponse response = fault(QuicTestAction::close_with_transport_error, kH3NoError);
  response.transport_error = code;
  response.close_reason = std::move(reason);
  return response;
}

QuicTestResponse QuicTestResponse::never_answer() {
  return fault(QuicTestAction::never_answer, kH3InternalError);
}

QuicTestResponse QuicTestResponse::go_silent_mid_body(std::uint64_t size, std::uint64_t after) {
  QuicTestResponse response = reset_mid_body(size, after);
  response.action = QuicTestAction::go_silent_mid_body;
  return response;
}

QuicTestResponse QuicTestResponse::stateless_reset() {
  return fault(QuicTestAction::stateless_reset, kH3NoError);
}

std::uint64_t body_size(const std::variant<std::string, GeneratedBody>& body) {
  if (const auto* text = std::get_if<std::string>(&body)) return text->size();
  return std::get<GeneratedBody>(body).size;
}

ReplyBody::ReplyBody(const std::variant<std::string, GeneratedBody>& body,
                     std::optional<std::uint64_t> cut)
    : cut_(cut) {
  const std::uint64_t offered = std::min(body_size(body), cut.value_or(body_size(body)));
  if (const auto* text = std::get_if<std::string>(&body)) {
    queued_.push(text->substr(0, static_cast<std::size_t>(offered)));
  } else {
    queued_.push_generated(offered, std::get<GeneratedBody>(body).seed);
  }
}

ReplyBody::Pull ReplyBody::pull(std::span<nghttp3_vec> vecs) {
  Pull pull;
  std::size_t budget = kPiece;
  while (pull.count < vecs.size() && budget > 0) {
    std::string piece = queued_.take(budget);
    if (piece.empty()) break;
    budget -= std::min(budget, piece.size());
    handed_.push_back(std::move(piece));  // a deque: earlier pieces stay where they are
    std::string& kept = handed_.back();
    vecs[pull.count++] = {reinterpret_cast<std::uint8_t*>(kept.data()), kept.size()};
  }
  pull.eof = !cut_ && queued_.empty();
  return pull;
}

void ReplyBody::acked(std::uint64_t n) {
  acked_total_ += n;
  front_acked_ += n;
  while (!handed_.empty() && front_acked_ >= handed_.front().size()) {
    front_acked_ -= handed_.front().size();
    handed_.pop_front();
  }
}

}  // namespace sluice::test
