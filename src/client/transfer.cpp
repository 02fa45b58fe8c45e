// Transfer: one request from its start to its end across every hop: the proxy and
// connection of each, the request head with its cookies, the response head, redirects,
// Alt-Svc, the retries, and its end. Its body is in transfer_body.cpp, its timers in
// transfer_timers.cpp, its authentication retry in transfer_auth.cpp.
// Thread-safety: HTTP thread only.

#include "client/transfer.hpp"

#include <algorithm>
#include <charconv>
#include <utility>

#include "body/body_access.hpp"
#include "body/progress_source.hpp"
#include "client/client_core.hpp"
#include "pool/connection_pool.hpp"
#include "sluice/cookies.hpp"

namespace sluice {

namespace {

// GOAWAY and REFUSED_STREAM say the server did not process a request. A server
// shutting down can say it again on the next connection; past this it is an error.
constexpr int kMaxUnprocessedRetries = 2;
// A refused 0-RTT send goes again after the handshake on the same connection, so
// one refusal per connection the request tries; two allow a second early attempt.
constexpr int kMaxEarlyRefusals = 2;

bool is_idempotent(const std::string& method) {
  return method == "GET" || method == "HEAD" || method == "PUT" || method == "DELETE" ||
         method == "OPTIONS" || method == "TRACE";
}

}  // namespace

Transfer::Transfer(ClientCore& core, Request request, Url url,
                   std::shared_ptr<PendingState> pending, std::unique_ptr<RequestBodySource> body)
    : core_(core),
      request_(std::move(request)),
      url_(std::move(url)),
      method_(request_.method),
      pending_(std::move(pending)),
      body_(body ? std::make_unique<ProgressSource>(std::move(body),
                                                    [this] { last_activity_ = core_.loop().now(); })
                 : nullptr),
      auth_(request_.headers.contains("authorization") ? Authentication{} : request_.auth) {
  compressed_body_.set_release_threshold(core_.options().release_threshold);
}

Transfer::~Transfer() = default;

void Transfer::begin() {
  timing_.start = timing_.fetch_start = core_.loop().now();
  std::weak_ptr<Transfer> weak = weak_from_this();
  auto poster = core_.poster();
  // A reader may register callbacks after the transfer ended: the staging buffer then
  // delivers on its own, through this cell filled once it exists. The post holds the
  // buffer (taken while whoever notifies still holds it): in callback mode the
  // callbacks own the body, and the handle that registered them may already be gone
  // when the post runs. Only the post holds it, so nothing outlives a dropped post.
  auto staging_cell = std::make_shared<std::weak_ptr<StagingBuffer>>();
  staging_ = std::make_shared<StagingBuffer>(request_.allowance.initial_bytes, [poster, weak, staging_cell] {
    return poster->post([weak, staging = staging_cell->lock()] {
      if (auto self = weak.lock(); self && self->phase_ == Phase::body) {
        self->on_consumer_activity();
      } else if (staging) {
        staging->deliver_callbacks();
      }
    });
  }, core_.staged_budget(), core_.loop());
  staging_->set_host_dispatch(core_.host_dispatch());
  *staging_cell = staging_;
  if (request_.timeouts.total.count() > 0) {
    arm_timer(total_timer_, request_.timeouts.total, &Transfer::total_timeout_error);
  }
  if (!choose_proxy()) return;
  queue_for_connection();
}

bool Transfer::choose_proxy() {
  // QUIC is UDP: a Unix socket carries only what goes over TCP.
  if (request_.version == VersionPolicy::http3_only && !core_.network().unix_socket.empty()) {
    fail(Error(ErrorCategory::usage, "HTTP/3 cannot go over the Unix socket " +
                                         core_.network().unix_socket +
                                         " (QUIC is UDP): allow another version"));
    return false;
  }
  proxy_ = core_.proxies().route_for(url_);
  if (!proxy_) return true;
  if (request_.version == VersionPolicy::http3_only) {
    fail(Error(ErrorCategory::usage, "HTTP/3 cannot go through proxy " + proxy_->display +
                                         " (QUIC is UDP): allow another version, or exempt " +
                                         url_.host + " with no_proxy"));
    return false;
  }
  // h2c by prior knowledge speaks HTTP/2 from the first byte: only a tunnel carries it.
  if (request_.version == VersionPolicy::http2_prior_knowledge) proxy_->tunnel = true;
  return true;
}

void Transfer::queue_for_connection() {
  phase_ = Phase::waiting_connection;
  const TimePoint queued_at = core_.loop().now();
  core_.pool().submit(*this);
  // A pooled connection with a free stream takes the transfer at once (every
  // request but the first on an h2 or h3 connection): only one still waiting needs
  // the timer.
  if (phase_ == Phase::waiting_connection && request_.timeouts.connect.count() > 0) {
    arm_timer_at(connect_timer_, queued_at + request_.timeouts.connect,
                 [](Transfer& self) { self.fail(self.connect_timeout_error()); });
  }
}

// Built for every attempt and every redirect hop, so each carries the jar's cookies
// for its own URL as they are now (a hop's Set-Cookie is already stored).
void Transfer::add_jar_cookies(Headers& headers) const {
  const auto& jar = core_.options().cookie_jar;
  if (!jar) return;
  std::string cookies = jar->cookie_header(url_);
  if (cookies.empty()) return;
  // One Cookie field (RFC 6265bis 5.8.3): the jar's first, as curl sends them, then
  // the request's own (all of them, should it carry several).
  for (std::string_view own : headers.get_all("cookie")) {
    cookies += "; ";
    cookies += own;
  }
  headers.set("Cookie", std::move(cookies));
}

// Every response's Set-Cookie, a redirect's too, before the next hop is planned.
void Transfer::store_cookies(const Headers& headers) {
  const auto& jar = core_.options().cookie_jar;
  if (!jar) return;
  for (std::string_view field : headers.get_all("set-cookie")) {
    const SetCookieOutcome outcome = jar->set_cookie(url_, field);
    if (outcome.kind == SetCookieOutcome::Kind::refused && core_.trace().on()) {
      core_.trace().emit("cookie refused from " + url_.origin() + ": " + outcome.reason);
    }
  }
}

ExchangeRequest Transfer::build_exchange() {
  ExchangeRequest exchange;
  exchange.method = method_;
  exchange.scheme = url_.scheme;
  exchange.authority = url_.authority();
  exchange.target = url_.target();
  const bool forward_proxy = proxy_ && !proxy_->tunnel;
  if (forward_proxy) {
    // A proxy that forwards (no tunnel) takes the whole URL in the request line.
    exchange.target = url_.scheme + "://" + url_.authority() + url_.target();
  }
  // Room for the defaults added below: the copy, then no reallocation.
  exchange.headers.reserve(request_.headers.size() + 4);
  exchange.headers = request_.headers;
  if (!exchange.headers.contains("user-agent")) {
    exchange.headers.add("User-Agent", core_.options().user_agent);
  }
  if (!exchange.headers.contains("accept")) exchange.headers.add("Accept", "*/*");
  if (forward_proxy && !proxy_->authorization.empty() &&
      !exchange.headers.contains("proxy-authorization")) {
    exchange.headers.add("Proxy-Authorization", proxy_->authorization);
  }
  if (!auth_header_.empty() && !exchange.headers.contains("authorization")) {
    exchange.headers.add("Authorization", auth_header_);
  }
  if (request_.decode.enabled && !exchange.headers.contains("accept-encoding")) {
    exchange.headers.add("Accept-Encoding", std::string(kAcceptEncoding));
  }
  add_jar_cookies(exchange.headers);
  sent_headers_ = exchange.headers;
  exchange.body = body_.get();
  exchange.max_header_bytes = request_.max_header_bytes;
  exchange.allowance = request_.allowance;
  return exchange;
}

void Transfer::attach(Connection& conn) {
  cancel_timer(connect_timer_);
  conn_ = &conn;
  exchange_ = kNoExchange;
  staging_->set_allowance(request_.allowance.initial_bytes);  // each exchange starts small
  conn_reused_ = conn.was_reused();
  note_connection(conn);
  phase_ = Phase::waiting_head;
  if (request_.timeouts.first_byte.count() > 0) {
    arm_timer(first_byte_timer_, request_.timeouts.first_byte, &Transfer::first_byte_timeout_error);
  }
  // Idle counts from here: an upload the server stops reading is as idle as silence.
  last_activity_ = core_.loop().now();
  arm_idle_timer();
  // The start may fail inside (the sink hears it, and may retry on another
  // connection before start returns): the id is this attach's only if nothing did.
  const std::uint64_t attach = ++attaches_;
  const ExchangeId exchange = conn.start(build_exchange(), *this);
  if (attach == attaches_ && conn_ == &conn) exchange_ = exchange;
  core_.poll_before_sleep_if_alone();  // a lone request's answer often comes within it
}

void Transfer::note_connection(const Connection& conn) {
  const TimePoint now = core_.loop().now();
  timing_.request_start = now;
  const ConnectTiming& made = conn.connect_timing();
  // A connection that became ready while this request waited was made for it (or
  // for it and others queued with it): its steps are this response's. Steps begun
  // before the request are clamped to its start, as Resource Timing does.
  const auto ready = made.ready();
  timing_.connection_reused = !ready || *ready < timing_.fetch_start;
  if (!timing_.connection_reused) ++connects_;
  auto step = [&](const std::optional<TimePoint>& at) -> std::optional<TimePoint> {
    if (timing_.connection_reused || !at) return std::nullopt;
    return std::max(*at, timing_.fetch_start);
  };
  timing_.dns_start = step(made.dns_start);
  timing_.dns_end = step(made.dns_end);
  timing_.connect_start = step(made.connect_start);
  timing_.connect_end = step(made.connect_end);
  timing_.tls_start = step(made.tls_start);
  timing_.tls_end = step(made.tls_end);
}

// With 10,000 short responses in flight, a 64 KiB block each (a quarter of the
// mark) for bodies of a few hundred bytes made the heap the HTTP thread's largest
// cost (the profile of `sluice-bench many --concurrency 10000`).
void Transfer::expect_known_length(const Headers& headers) {
  const auto text = headers.get("content-length");
  if (!text) return;
  std::uint64_t length = 0;
  const auto [end, ec] = std::from_chars(text->data(), text->data() + text->size(), length);
  if (ec == std::errc() && end == text->data() + text->size() && length > 0) {
    staging_->expect_body_size(length);
  }
}

void Transfer::on_response_head(ResponseHead head) {
  cancel_timer(first_byte_timer_);
  last_activity_ = timing_.response_start = core_.loop().now();
  // A 401 may set cookies too, and they go with the answer to its challenge.
  store_cookies(head.headers);
  if (head.status == 401 && start_auth_retry(head)) return;
  if (request_.redirects.follow && is_redirect_status(head.status) && start_redirect(head)) return;
  if (phase_ == Phase::finished) return;
  if (!request_.redirects.follow && request_.redirects.fail_on_redirect &&
      is_redirect_status(head.status) && head.headers.contains("location")) {
    fail(Error(ErrorCode::redirect_refused,
               "the server redirected (" + std::to_string(head.status) + " to '" +
                   std::string(*head.headers.get("location")) +
                   "') and the request refuses redirects"));
    return;
  }
  remember_alt_svc(head.headers);
  if (request_.decode.enabled) {
    if (auto coding = head.headers.get("content-encoding")) {
      auto decoder = ContentDecoder::create(
          *coding, {request_.decode.max_decoded_size, request_.decode.max_ratio});
      if (!decoder) {
        fail(std::move(decoder).error());
        return;
      }
      decoder_ = std::move(*decoder);
    }
  }
  if (!decoder_) expect_known_length(head.headers);
  phase_ = Phase::body;
  arm_idle_timer();
  Response response;
  response.status = head.status;
  response.headers = std::move(head.headers);
  response.version = head.version   ? *head.version
                     : conn_ != nullptr ? conn_->version()
                                        : HttpVersion::http1_1;
  response.effective_url = url_.to_string();
  response.redirects = redirects_;
  response.connects = connects_;
  if (conn_ != nullptr) {
    response.remote_ip = conn_->connect_timing().remote_ip;
    response.remote_port = conn_->connect_timing().remote_port;
    response.local_ip = conn_->connect_timing().local_ip;
    response.local_port = conn_->connect_timing().local_port;
    response.tls_verify_result = conn_->connect_timing().tls_verify_result;
  }
  response.timing = timing_;
  // The response is decided once: no exchange is built for this transfer after it.
  response.request_headers = std::move(sent_headers_);
  response.request_method = method_;
  if (body_) response.request_body_length = body_->length();
  response.body = BodyAccess::reader(staging_);
  pending_->set_body(staging_);
  pending_->decide(std::move(response));
}

// An https origin that announces h3 is tried over QUIC next time (automatic mode).
void Transfer::remember_alt_svc(const Headers& headers) {
  if (!url_.is_https() || conn_ == nullptr || conn_->version() == HttpVersion::http3) return;
  if (auto value = headers.get("alt-svc")) {
    core_.alt_svc().update(url_.origin(), *value, core_.loop().now());
  }
}

// Returns true when the response is a redirect to follow (or failed while planning).
bool Transfer::start_redirect(const ResponseHead& head) {
  auto step = plan_redirect(url_, method_, head.status, head.headers, redirects_, request_.redirects);
  if (!step) {
    fail(std::move(step).error());
    return true;
  }
  next_hop_ = std::move(*step);
  redirect_body_bytes_ = 0;
  phase_ = Phase::redirect_body;
  return true;
}

void Transfer::follow_redirect() {
  if (resend_for_auth_) {
    resend_authenticated();
    return;
  }
  RedirectStep step = std::move(*next_hop_);
  next_hop_.reset();
  // Rewound only now: until the exchange ended its connection may still be sending.
  if (step.keep_body && body_ && !body_->rewind()) {
    fail(Error(ErrorCategory::usage,
               "redirect: cannot resend the request body for the redirect to " +
                   step.next.to_string() +
                   " (a streamed body, or a large body already freed after sending)"));
    return;
  }
  drop_credentials_across_origins(url_, step.next, request_.headers);
  auth_.on_redirect(url_.origin() != step.next.origin());
  auth_header_.clear();
  // Credentials a Location carries are not sent (curl neither) and must not show in
  // the effective URL or the trace.
  step.next.userinfo.clear();
  if (!step.keep_body && body_) {
    body_.reset();
    request_.headers.remove("content-type");
  }
  if (core_.trace().on()) {
    core_.trace().emit("redirect " + std::to_string(redirects_ + 1) + ": " + method_ + " " +
                       url_.to_string() + " -> " + step.method + " " + step.next.to_string());
  }
  url_ = std::move(step.next);
  method_ = std::move(step.method);
  ++redirects_;
  timing_.fetch_start = core_.loop().now();
  if (!choose_proxy()) return;
  queue_for_connection();
}

void Transfer::on_trailers(Headers trailers) { trailers_ = std::move(trailers); }

void Transfer::on_complete() {
  conn_ = nullptr;
  exchange_ = kNoExchange;
  cancel_timer(first_byte_timer_);
  cancel_timer(idle_timer_);
  if (phase_ == Phase::redirect_body) {
    follow_redirect();
    return;
  }
  if (phase_ != Phase::body) return;
  if (reader_dropped_) {
    finished();
    return;
  }
  complete_pending_ = true;
  if (decoder_) {
    pump_decoder();
  } else {
    finish_body();
  }
}

bool Transfer::may_retry() const {
  return phase_ == Phase::waiting_head && conn_reused_ && !retried_ && is_idempotent(method_);
}

void Transfer::on_error(Error error) {
  // A pooled connection the server had closed: the request never reached it. Only a
  // connection that died counts; a stream the server reset (h2) may have been
  // processed, and the server says when it was not (on_unprocessed).
  const bool conn_died = conn_ != nullptr && conn_->is_closed();
  conn_ = nullptr;
  exchange_ = kNoExchange;
  // The body of a redirect is read only to keep the connection usable and then
  // dropped: however it ended (cut, reset, a TLS close without close_notify), the
  // redirect stands.
  if (phase_ == Phase::redirect_body) {
    follow_redirect();
    return;
  }
  if (conn_died && may_retry() && retry(error)) {
    retried_ = true;
    return;
  }
  fail(std::move(error));
}

// The server said it did not process the request (h2 GOAWAY, REFUSED_STREAM): safe
// to send again whatever the method, a bounded number of times.
void Transfer::on_unprocessed(Error error) {
  conn_ = nullptr;
  exchange_ = kNoExchange;
  if (phase_ == Phase::waiting_head && unprocessed_retries_ < kMaxUnprocessedRetries) {
    if (retry(error)) {
      ++unprocessed_retries_;
      return;
    }
    fail(Error(error.category(),
               error.message() + "; sluice cannot resend the request body (a streamed body, "
                                 "or a large body already freed after sending)"));
    return;
  }
  if (unprocessed_retries_ > 0) {
    // "Safe to send again" would read as advice: say that it was, and how often.
    fail(Error(error.category(), error.message() + "; sluice sent the request " +
                                     std::to_string(unprocessed_retries_ + 1) +
                                     " times and the server refused it unprocessed each time"));
    return;
  }
  fail(std::move(error));
}

// Early data the server refused says nothing about the request: it goes again
// without using one of the resends kept for the server's own refusals.
void Transfer::on_early_data_refused(Error error) {
  conn_ = nullptr;
  exchange_ = kNoExchange;
  if (phase_ == Phase::waiting_head && early_refusals_ < kMaxEarlyRefusals && retry(error)) {
    ++early_refusals_;
    return;
  }
  on_unprocessed(std::move(error));
}

// Queues the request again; false when its body cannot be sent again.
bool Transfer::retry(const Error& cause) {
  if (body_ && !body_->rewind()) return false;
  if (core_.trace().on()) {
    core_.trace().emit("retrying " + method_ + " " + url_.to_string() + ": " + cause.message());
  }
  cancel_timer(first_byte_timer_);
  queue_for_connection();
  return true;
}

void Transfer::abandon_exchange() {
  if (conn_ == nullptr) return;
  Connection* conn = conn_;
  conn_ = nullptr;
  conn->cancel(std::exchange(exchange_, kNoExchange));
}

void Transfer::fail(Error error) {
  if (phase_ == Phase::finished) return;
  if (conn_ != nullptr) {
    abandon_exchange();
  } else if (phase_ == Phase::waiting_connection) {
    core_.pool().withdraw(*this);
  }
  if (phase_ == Phase::body) {
    staging_->fail(std::move(error), core_.loop().now());
    staging_->deliver_callbacks();
  } else {
    pending_->decide(std::move(error));
  }
  finished();
}

void Transfer::finished() {
  if (phase_ == Phase::finished) return;
  phase_ = Phase::finished;
  cancel_timer(total_timer_);
  cancel_timer(connect_timer_);
  cancel_timer(first_byte_timer_);
  cancel_timer(idle_timer_);
  cancel_timer(drain_timer_);
  body_.reset();  // a source's memory goes now, on the HTTP thread
  compressed_body_.release_if_empty();
  core_.transfer_done(*this);
}

TransferStats Transfer::stats() const {
  TransferStats stats;
  stats.paused = paused();
  if (staging_) {
    stats.staged_bytes = staging_->staged_bytes();
    if (stats.staged_bytes == 0) stats.scratch_bytes = staging_->retained_capacity();
  }
  if (compressed_body_.empty()) stats.scratch_bytes += compressed_body_.capacity();
  if (body_) stats.request_body_bytes = body_->held_bytes();
  return stats;
}

}  // namespace sluice
