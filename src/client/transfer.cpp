#include "client/transfer.hpp"

#include <algorithm>
#include <charconv>
#include <utility>

#include "client/body_access.hpp"
#include "client/client_core.hpp"
#include "client/connection_pool.hpp"
#include "client/progress_source.hpp"
#include "sluice/cookies.hpp"

namespace sluice {

namespace {

// A redirect's own body is read and dropped up to this size so its connection can be
// reused; a longer one closes the connection instead.
constexpr std::uint64_t kRedirectDrainLimit = 64 * 1024;

// A decoder step produces at most this much: the decoded scratch stays one
// receive's size however large the allowance, and past the Client's staged-bytes budget
// a reader with nothing waiting gets this much more per step, as a socket read would.
constexpr std::size_t kDecodeStep = 64 * 1024;

// GOAWAY and REFUSED_STREAM say the server did not process a request. A server
// shutting down can say it again on the next connection; past this it is an error.
constexpr int kMaxUnprocessedRetries = 2;
// A refused 0-RTT send goes again after the handshake on the same connection, so
// one refusal per connection the request tries; two allow a second early attempt.
constexpr int kMaxEarlyRefusals = 2;
// How long the rest of a dropped body (less than its allowance) may take to arrive before
// its exchange is abandoned (at most the idle timeout): without a deadline of its
// own, a server that stalls would hold the connection until the Client goes.
constexpr std::chrono::milliseconds kDrainDeadline{5'000};

bool is_idempotent(const std::string& method) {
  return method == "GET" || method == "HEAD" || method == "PUT" || method == "DELETE" ||
         method == "OPTIONS" || method == "TRACE";
}

std::string millis(std::chrono::milliseconds ms) { return std::to_string(ms.count()) + " ms"; }

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

Error Transfer::total_timeout_error() const {
  return Error(ErrorCode::total_timeout, "transfer did not complete within " +
                                             millis(request_.timeouts.total) + " (total timeout)");
}

Error Transfer::connect_timeout_error() const {
  const char* what = request_.version == VersionPolicy::http3_only
                         ? "connect: no HTTP/3 (QUIC) connection to "
                         : "connect: no connection (or free stream) to ";
  return Error(ErrorCode::connect_timeout,
               what + url_.authority() + " within " + millis(request_.timeouts.connect));
}

Error Transfer::first_byte_timeout_error() const {
  return Error(ErrorCode::first_byte_timeout, "no response headers from " + url_.authority() +
                                                  " within " + millis(request_.timeouts.first_byte));
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

void Transfer::on_body(std::span<const std::byte> bytes) {
  last_activity_ = core_.loop().now();
  if (phase_ == Phase::redirect_body) {
    redirect_body_bytes_ += bytes.size();
    if (redirect_body_bytes_ > kRedirectDrainLimit) {
      abandon_exchange();
      follow_redirect();
    }
    return;
  }
  if (phase_ != Phase::body) return;
  received_ += bytes.size();
  if (request_.max_body_size != 0 && received_ > request_.max_body_size) {
    fail(Error(ErrorCode::body_too_large, "response body exceeds the limit of " +
                                             std::to_string(request_.max_body_size) + " bytes"));
    return;
  }
  if (reader_dropped_) {
    discarded_ += bytes.size();
    if (discarded_ > staging_->allowance()) {
      abandon_exchange();
      finished();
    }
    return;
  }
  deliver_body(bytes);
}

void Transfer::deliver_body(std::span<const std::byte> bytes) {
  if (decoder_) {
    compressed_body_.append(bytes);
    pump_decoder();
    return;
  }
  staging_->append(bytes);
  wake_reader_at_turn_end();
  staging_->deliver_callbacks();
}

// One wake for everything this turn staged: an h2 receive carries many DATA frames
// (nginx sends 8 KiB ones), and a wake per frame costs the reader a context switch
// per frame.
void Transfer::wake_reader_at_turn_end() {
  if (reader_wake_scheduled_) return;
  reader_wake_scheduled_ = true;
  core_.loop().at_turn_end([weak = weak_from_this()] {
    if (auto self = weak.lock()) {
      self->reader_wake_scheduled_ = false;
      self->staging_->wake_reader();
    }
  });
}

// Decodes only as far as the staging buffer has room: a reader that stops reading
// also stops decompression, so a small compressed input cannot inflate past the
// allowance.
void Transfer::pump_decoder() {
  while (decoder_ && phase_ == Phase::body) {
    // Decoded bytes count against the Client's budget like received ones: a reader
    // with nothing waiting gets at most one receive's worth past it, as over h1.
    if (held_by_budget()) break;
    const std::size_t room = std::min(
        {staging_->room(), kDecodeStep, std::max(core_.staged_budget()->left(), kDecodeStep)});
    if (room == 0) {
      // Callback mode drains on this thread: hand over, then decode on.
      if (staging_->deliver_callbacks()) continue;
      break;
    }
    // Decoded straight into the staging buffer's free room: no scratch, no copy.
    const std::span<std::byte> space = staging_->prepare(room);
    if (space.empty()) break;  // nothing may be staged now: the body already ended
    SpanOutput out(space);
    auto step = decoder_->decode(compressed_body_.readable(), out, space.size());
    if (!step) {
      fail(std::move(step).error());
      return;
    }
    compressed_body_.consume(step->consumed);
    if (out.written() > 0) {
      staging_->append(space.first(out.written()));
      wake_reader_at_turn_end();
    }
    if (step->consumed == 0 && step->produced == 0) break;
  }
  if (phase_ != Phase::body) return;
  staging_->deliver_callbacks();
  if (complete_pending_ && compressed_body_.empty() && (!decoder_ || staging_->room() > 0)) {
    finish_body();
  }
}

void Transfer::finish_body() {
  if (decoder_) {
    auto done = decoder_->finish();
    if (!done) {
      fail(std::move(done).error());
      return;
    }
  }
  staging_->finish(std::move(trailers_), core_.loop().now());
  staging_->deliver_callbacks();
  finished();
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

bool Transfer::wants_body() const {
  if (phase_ != Phase::body || reader_dropped_) return true;
  return compressed_body_.empty() && !staging_->paused() && !held_by_budget();
}

bool Transfer::may_extend_window() const { return !held_by_budget(); }

// Only bytes that go to the reader as received: not a redirect's body, not one for
// the decoder, not one nobody will read.
std::span<std::byte> Transfer::body_space(std::size_t max) {
  if (phase_ != Phase::body || reader_dropped_ || decoder_) return {};
  return staging_->prepare(max);
}

// Each exchange starts at the request's initial allowance; the staging buffer follows
// it as the exchange's transport grows or cuts it.
void Transfer::on_allowance(std::size_t bytes) {
  if (staging_) staging_->set_allowance(bytes);
}

// HTTP/1.1 receives no more than this at once. A reader that went away, and a body
// not yet begun, take a whole receive (its head may share it with the body's start).
std::size_t Transfer::body_room() const {
  if (phase_ != Phase::body || reader_dropped_) return SIZE_MAX;
  return staging_->room();
}

// Asks the staging buffer last, since holding arms its resume: a reader that
// empties it then posts one.
bool Transfer::held_by_budget() const {
  if (phase_ != Phase::body || reader_dropped_) return false;
  StagedBudget& budget = *core_.staged_budget();
  if (!budget.limited() || !budget.exhausted() || !staging_->hold_for_budget()) return false;
  core_.note_budget_held(*this);
  return true;
}

std::size_t Transfer::held_bytes() const {
  if (phase_ != Phase::body || reader_dropped_) return 0;
  const StagingBuffer::Held held = staging_->held();
  held_taken_ = held.taken;
  return held.staged + compressed_body_.size();
}

void Transfer::report_taken_after(std::size_t bytes) {
  if (phase_ != Phase::body || reader_dropped_) return;
  staging_->report_when_taken(bytes == 0 ? 0 : held_taken_ + bytes);
}

bool Transfer::paused() const { return staging_ && staging_->paused(); }

bool Transfer::hold_ended_unheard() {
  if (!staging_) return false;
  const std::uint64_t ended = staging_->pauses_ended();
  return std::exchange(pauses_ended_seen_, ended) != ended;
}

// Like held_by_budget(), without arming anything: readers holding bytes while the
// Client's budget is spent keep this stream from receiving, however far below its
// allowance it is, so the silence is ours.
bool Transfer::waits_for_budget() const {
  if (phase_ != Phase::body || reader_dropped_ || !staging_) return false;
  const StagedBudget& budget = *core_.staged_budget();
  return budget.limited() && budget.left() == 0 && staging_->staged_bytes() > 0;
}

void Transfer::on_consumer_activity() {
  if (phase_ != Phase::body) return;
  if (!reader_dropped_ && staging_->reader_gone()) {
    reader_dropped();
    return;
  }
  if (decoder_) {
    pump_decoder();
  } else {
    staging_->deliver_callbacks();
  }
  if (phase_ == Phase::body && conn_ != nullptr && wants_body()) {
    // The wait was ours (a reader at its allowance, the budget): the server's silence
    // counts from now, when it may send again, not from the idle timer's last look.
    last_activity_ = core_.loop().now();
    pauses_ended_seen_ = staging_->pauses_ended();  // heard: the timer need not count it
    conn_->resume(exchange_);
  }
}

// The reader went away unread: a body that fits in its allowance still completes (its
// connection is reused); a longer one is abandoned. When the exchange has already
// ended (a decoder was waiting for staging room), nothing more will arrive to
// complete it: it ends now.
void Transfer::reader_dropped() {
  reader_dropped_ = true;
  discarded_ = staging_->drop_staged() + compressed_body_.size();
  compressed_body_.clear();
  decoder_.reset();
  if (complete_pending_ || discarded_ >= staging_->allowance() || staging_->paused()) {
    abandon_exchange();
    finished();
    return;
  }
  if (conn_ != nullptr) conn_->resume(exchange_);
  arm_drain_timer();
}

void Transfer::arm_drain_timer() {
  std::chrono::milliseconds deadline = kDrainDeadline;
  const auto idle = request_.timeouts.idle;
  if (idle.count() > 0 && idle < deadline) deadline = idle;
  arm_timer_at(drain_timer_, core_.loop().now() + deadline, [](Transfer& self) {
    if (self.phase_ != Phase::body) return;
    self.abandon_exchange();  // h1 closes the connection; h2 and h3 cancel the stream
    self.finished();
  });
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

std::size_t Transfer::sweep(std::chrono::steady_clock::time_point paused_before,
                            std::unordered_set<Connection*>& connections) {
  if (phase_ != Phase::body || !staging_->paused() || staging_->paused_since() > paused_before) {
    return 0;
  }
  std::size_t freed = compressed_body_.release_if_empty() + staging_->release_empty_capacity();
  if (decoder_) freed += decoder_->release_scratch();
  if (conn_ != nullptr) connections.insert(conn_);
  return freed;
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

void Transfer::arm_timer_at(EventLoop::TimerId& id, TimePoint at,
                            std::function<void(Transfer&)> then) {
  cancel_timer(id);
  std::weak_ptr<Transfer> weak = weak_from_this();
  id = core_.loop().add_timer(at, [weak, &id, then = std::move(then)] {
    if (auto self = weak.lock()) {
      id = 0;
      then(*self);
    }
  });
}

void Transfer::arm_timer(EventLoop::TimerId& id, std::chrono::milliseconds after,
                         TimeoutError make_error) {
  arm_timer_at(id, core_.loop().now() + after,
               [make_error](Transfer& self) { self.fail((self.*make_error)()); });
}

// The idle timeout counts only time the server is expected to send: while the reader
// holds the stream paused, silence is ours, not the server's.
void Transfer::arm_idle_timer() {
  const auto idle = request_.timeouts.idle;
  if (idle.count() <= 0) return;
  arm_timer_at(idle_timer_, last_activity_ + idle, [idle](Transfer& self) {
    if (self.phase_ != Phase::body && self.phase_ != Phase::waiting_head &&
        self.phase_ != Phase::redirect_body) {
      return;
    }
    const TimePoint now = self.core_.loop().now();
    // Waits that are ours: a reader holding the body (or one whose take ended a hold
    // since the last look, its resume still on the way here), a decoder behind, a
    // request body producer with nothing yet.
    const bool hold_ended = self.hold_ended_unheard();
    const bool our_wait = self.paused() || hold_ended || self.waits_for_budget() ||
                          !self.compressed_body_.empty() ||
                          (self.phase_ == Phase::waiting_head && self.body_ &&
                           self.body_->waiting_for_producer());
    if (our_wait) self.last_activity_ = now;
    if (now - self.last_activity_ >= idle) {
      self.fail(self.idle_error(idle));
      return;
    }
    self.arm_idle_timer();
  });
}

Error Transfer::idle_error(std::chrono::milliseconds idle) const {
  const std::string host = url_.authority();
  if (phase_ == Phase::waiting_head && body_) {
    return Error(ErrorCode::idle_timeout, "idle timeout: " + host +
                                             " neither read the request body nor answered for " +
                                             millis(idle));
  }
  if (phase_ == Phase::waiting_head) {
    return Error(ErrorCode::idle_timeout, "idle timeout: no response from " + host + " for " + millis(idle));
  }
  return Error(ErrorCode::idle_timeout, "idle timeout: no data from " + host + " for " + millis(idle));
}

void Transfer::cancel_timer(EventLoop::TimerId& id) {
  if (id != 0) core_.loop().cancel_timer(id);
  id = 0;
}

}  // namespace sluice
