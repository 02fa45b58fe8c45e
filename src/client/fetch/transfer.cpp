// Transfer: one request from its start to its end, running each hop its FetchHops
// plans (client/fetch/fetch_hops.hpp: the proxy, the request head, what a response head
// means, how often a send may go again) as one exchange: the connection of each, the
// response head, Alt-Svc, the resends, and its end. Its body is in transfer_body.cpp,
// its timers in transfer_timers.cpp.
// Thread-safety: HTTP thread only.

#include "client/fetch/transfer.hpp"

#include <algorithm>
#include <charconv>
#include <utility>

#include "body/body_access.hpp"
#include "body/progress_source.hpp"
#include "client/state_files.hpp"
#include "pool/connection_pool.hpp"

namespace sluice {

Transfer::Transfer(TransferServices services, Request request, Url url,
                   std::shared_ptr<PendingState> pending, std::unique_ptr<RequestBodySource> body)
    : services_(std::move(services)),
      request_(std::move(request)),
      hops_({services_.options, services_.proxies, services_.network, services_.trace,
             services_.hsts},
            request_, std::move(url)),
      pending_(std::move(pending)),
      body_(body ? std::make_unique<ProgressSource>(std::move(body),
                                                    [this](std::size_t taken) {
                                                      last_activity_ = services_.loop.now();
                                                      moved_ += taken;
                                                    })
                 : nullptr),
      decoding_(services_.options.memory.release_threshold) {}

Transfer::~Transfer() = default;

void Transfer::begin() {
  timing_.start = timing_.fetch_start = services_.loop.now();
  std::weak_ptr<Transfer> weak = weak_from_this();
  auto poster = services_.poster;
  // A reader may register callbacks after the transfer ended: the staging buffer then
  // delivers on its own, through this cell filled once it exists. The post holds the
  // buffer (taken while whoever notifies still holds it): in callback mode the
  // callbacks own the body, and the handle that registered them may already be gone
  // when the post runs. Only the post holds it, so nothing outlives a dropped post.
  auto staging_cell = std::make_shared<std::weak_ptr<StagingBuffer>>();
  staging_ = std::make_shared<StagingBuffer>(
      request_.allowance.initial_bytes,
      [poster, weak, staging_cell] {
        return poster->post([weak, staging = staging_cell->lock()] {
          if (auto self = weak.lock(); self && self->phase_ == Phase::body) {
            self->on_consumer_activity();
          } else if (staging) {
            staging->deliver_callbacks();
          }
        });
      },
      services_.staged_budget, services_.loop);
  staging_->set_host_dispatch(services_.host_dispatch);
  *staging_cell = staging_;
  if (request_.timeouts.total.count() > 0) {
    arm_timer(total_timer_, request_.timeouts.total, &Transfer::total_timeout_error);
  }
  queue_hop();
}

void Transfer::queue_hop() {
  // HTTP/1.0 has no chunked coding, and a body that ends at the close leaves no way to
  // read the response: the length must be known before the head goes out.
  if (request_.version == VersionPolicy::http1_0 && body_ && !body_->length()) {
    fail(Error(ErrorCategory::usage,
               "HTTP/1.0 cannot send a request body of unknown length (it has no chunked "
               "coding): give the body's length, or allow HTTP/1.1"));
    return;
  }
  if (auto chosen = hops_.choose_proxy(); !chosen) {
    fail(std::move(chosen).error());
    return;
  }
  queue_for_connection();
}

void Transfer::queue_for_connection() {
  phase_ = Phase::waiting_connection;
  const TimePoint queued_at = services_.loop.now();
  services_.pool.submit(*this);
  // A pooled connection with a free stream takes the transfer at once (every
  // request but the first on an h2 or h3 connection): only one still waiting needs
  // the timer.
  if (phase_ == Phase::waiting_connection && request_.timeouts.connect.count() > 0) {
    arm_timer_at(connect_timer_, queued_at + request_.timeouts.connect,
                 [](Transfer& self) { self.fail(self.connect_timeout_error()); });
  }
}

ExchangeRequest Transfer::build_exchange() {
  ExchangeRequest exchange;
  const Url& url = hops_.url();
  exchange.method = hops_.method();
  exchange.scheme = url.scheme;
  exchange.authority = url.authority();
  exchange.target = hops_.request_target();
  // AWS SigV4 hashes the body when it is in memory (none: the empty one).
  const std::optional<std::string_view> payload =
      body_ ? body_->whole_in_memory() : std::optional<std::string_view>(std::string_view());
  exchange.headers = hops_.request_headers(request_.decode.enabled ? kAcceptEncoding : "", payload);
  sent_headers_ = exchange.headers;
  exchange.body = body_.get();
  exchange.max_header_bytes = request_.max_header_bytes;
  exchange.allowance = request_.allowance;
  return exchange;
}

void Transfer::attach(Connection& conn) {
  cancel_timer(connect_timer_);
  exchange_.attach(conn);
  staging_->set_allowance(request_.allowance.initial_bytes);  // each exchange starts small
  note_connection(conn);
  phase_ = Phase::waiting_head;
  if (request_.timeouts.first_byte.count() > 0) {
    arm_timer(first_byte_timer_, request_.timeouts.first_byte, &Transfer::first_byte_timeout_error);
  }
  // Idle counts from here: an upload the server stops reading is as idle as silence.
  last_activity_ = services_.loop.now();
  arm_idle_timer();
  start_low_speed_check();
  // The start may fail inside (the sink hears it, and may retry on another
  // connection before start returns).
  exchange_.start(build_exchange(), *this);
  services_.owner.awaiting_answer();
}

void Transfer::note_connection(const Connection& conn) {
  const TimePoint now = services_.loop.now();
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

void Transfer::on_response_head(ReceivedHead head) {
  cancel_timer(first_byte_timer_);
  last_activity_ = timing_.response_start = services_.loop.now();
  // Every head teaches, a redirect's or a 401's too (the usual HSTS answer is an
  // https 301), and while hops_ still names the origin that sent it.
  if (phase_ != Phase::finished) {
    remember_alt_svc(head.headers);
    remember_hsts(head.headers);
  }
  if (drains_for_next_hop(head) || phase_ == Phase::finished) return;
  if (!start_decoding(head.headers)) return;
  if (!decoding_.active()) expect_known_length(head.headers);
  phase_ = Phase::body;
  arm_idle_timer();
  const Connection* conn = exchange_.connection();
  Response response;
  response.status = head.status;
  response.headers = std::move(head.headers);
  response.version = head.version      ? *head.version
                     : conn != nullptr ? conn->version()
                                       : HttpVersion::http1_1;
  response.effective_url = hops_.url().to_string();
  response.redirects = hops_.redirects();
  response.connects = connects_;
  if (conn != nullptr) {
    const ConnectTiming& made = conn->connect_timing();
    response.remote_ip = made.remote_ip;
    response.remote_port = made.remote_port;
    response.local_ip = made.local_ip;
    response.local_port = made.local_port;
    response.tls_verify_result = made.tls_verify_result;
    response.tls = made.tls;
  }
  response.timing = timing_;
  // The response is decided once: no exchange is built for this transfer after it.
  response.request_headers = std::move(sent_headers_);
  response.request_method = hops_.method();
  if (body_) response.request_body_length = body_->length();
  response.body = BodyAccess::reader(staging_);
  pending_->set_body(staging_);
  pending_->decide(std::move(response));
}

bool Transfer::start_decoding(const Headers& headers) {
  if (!request_.decode.enabled) return true;
  const auto coding = headers.get("content-encoding");
  if (!coding) return true;
  auto started =
      decoding_.start(*coding, {request_.decode.max_decoded_size, request_.decode.max_ratio});
  if (!started) fail(std::move(started).error());
  return started.ok();
}

// An https origin that announces h3 is tried over QUIC next time (automatic mode).
void Transfer::remember_alt_svc(const Headers& headers) {
  const Url& url = hops_.url();
  const Connection* conn = exchange_.connection();
  if (!url.is_https() || conn == nullptr || conn->version() == HttpVersion::http3) return;
  if (auto value = headers.get("alt-svc")) {
    services_.alt_svc.update(url.origin(), *value, services_.loop.now());
  }
}

// RFC 6797 section 8.1: only from https with a certificate that was verified (never
// with -k), and only the first Strict-Transport-Security field. Redirects count too.
void Transfer::remember_hsts(const Headers& headers) {
  const Url& url = hops_.url();
  const Connection* conn = exchange_.connection();
  if (services_.hsts == nullptr || !url.is_https() || conn == nullptr ||
      services_.options.tls.insecure || conn->connect_timing().tls_verify_result != 0) {
    return;
  }
  if (auto value = headers.get("strict-transport-security")) {
    services_.hsts->update(url.host, *value, wall_clock_now());
  }
}

// A redirect to follow or a 401 answered: its body is drained (transfer_body.cpp)
// and the next hop goes when its exchange ended. A head the fetch refuses fails it.
bool Transfer::drains_for_next_hop(const ReceivedHead& head) {
  // Digest auth-int hashes the body: known when there is none or it is in memory.
  // Only a 401 reads it.
  std::optional<std::string_view> entity_body = std::string_view();
  if (head.status == 401 && body_) entity_body = body_->whole_in_memory();
  auto verdict = hops_.on_head(head.status, head.headers, entity_body);
  if (!verdict) {
    fail(std::move(verdict).error());
    return true;
  }
  if (*verdict == FetchHops::Verdict::answer) return false;
  resend_for_auth_ = *verdict == FetchHops::Verdict::challenge;
  redirect_body_bytes_ = 0;
  phase_ = Phase::redirect_body;
  return true;
}

void Transfer::after_drained_hop() {
  if (resend_for_auth_) {
    resend_authenticated();
  } else {
    follow_redirect();
  }
}

void Transfer::follow_redirect() {
  const bool keep_body = hops_.planned_redirect().keep_body;
  const bool stream_stays =
      request_.redirects.resend_unsent_stream || !std::holds_alternative<StreamBody>(request_.body);
  // Rewound only now: until the exchange ended its connection may still be sending.
  if (keep_body && body_ && (!stream_stays || !body_->rewind())) {
    fail(Error(ErrorCategory::usage,
               "redirect: cannot resend the request body for the redirect to " +
                   hops_.planned_redirect().next.to_string() +
                   " (a streamed body, or a large body already freed after sending)"));
    return;
  }
  const bool body_left_behind = !keep_body && body_;
  if (body_left_behind) body_.reset();
  timing_.fetch_start = services_.loop.now();
  if (auto next = hops_.follow_redirect(body_left_behind); !next) {
    fail(std::move(next).error());
    return;
  }
  queue_for_connection();
}

void Transfer::resend_authenticated() {
  resend_for_auth_ = false;
  // Rewound only now: until the 401's exchange ended its connection may still send.
  if (body_ && !body_->rewind()) {
    fail(Error(ErrorCategory::usage,
               "authentication: " + hops_.url().to_string() + " answered 401 asking for " +
                   hops_.challenge_scheme() +
                   " credentials, but the request body cannot be sent again (a streamed "
                   "body, or a large body already freed after sending); send it as bytes "
                   "or a file, or use Basic authentication, which needs no second send"));
    return;
  }
  hops_.resend_authenticated();
  queue_for_connection();
}

void Transfer::on_trailers(Headers trailers) { trailers_ = std::move(trailers); }

void Transfer::on_complete() {
  exchange_.ended();
  cancel_timer(first_byte_timer_);
  cancel_timer(idle_timer_);
  if (phase_ == Phase::redirect_body) {
    after_drained_hop();
    return;
  }
  if (phase_ != Phase::body) return;
  if (reader_dropped_) {
    finished();
    return;
  }
  complete_pending_ = true;
  if (decoding_.active()) {
    pump_decoder();
  } else {
    finish_body();
  }
}

bool Transfer::may_retry_dead_connection() const {
  return phase_ == Phase::waiting_head && exchange_.reused() &&
         hops_.may_resend_after_dead_connection();
}

void Transfer::on_error(Error error) {
  // A pooled connection the server had closed: the request never reached it. Only a
  // connection that died counts; a stream the server reset (h2) may have been
  // processed, and the server says when it was not (on_unprocessed).
  const bool conn_died = exchange_.connection_died();
  exchange_.ended();
  // The body of a redirect is read only to keep the connection usable and then
  // dropped: however it ended (cut, reset, a TLS close without close_notify), the
  // redirect stands.
  if (phase_ == Phase::redirect_body) {
    after_drained_hop();
    return;
  }
  if (conn_died && may_retry_dead_connection() && retry(error)) {
    hops_.resent_after_dead_connection();
    return;
  }
  fail(std::move(error));
}

// The server said it did not process the request (h2 GOAWAY, REFUSED_STREAM): safe
// to send again whatever the method, a bounded number of times.
void Transfer::on_unprocessed(Error error) {
  exchange_.ended();
  if (phase_ == Phase::waiting_head && hops_.may_resend_unprocessed()) {
    if (retry(error)) {
      hops_.resent_unprocessed();
      return;
    }
    fail(Error(error.category(), error.message() +
                                     "; sluice cannot resend the request body (a streamed body, "
                                     "or a large body already freed after sending)"));
    return;
  }
  if (hops_.unprocessed_resends() > 0) {
    // "Safe to send again" would read as advice: say that it was, and how often.
    fail(Error(error.category(), error.message() + "; sluice sent the request " +
                                     std::to_string(hops_.unprocessed_resends() + 1) +
                                     " times and the server refused it unprocessed each time"));
    return;
  }
  fail(std::move(error));
}

// Early data the server refused says nothing about the request: it goes again
// without using one of the resends kept for the server's own refusals.
void Transfer::on_early_data_refused(Error error) {
  exchange_.ended();
  if (phase_ == Phase::waiting_head && hops_.may_resend_early() && retry(error)) {
    hops_.resent_early();
    return;
  }
  on_unprocessed(std::move(error));
}

// Queues the request again; false when its body cannot be sent again.
bool Transfer::retry(const Error& cause) {
  if (body_ && !body_->rewind()) return false;
  if (services_.trace.on()) {
    services_.trace.emit("retrying " + hops_.method() + " " + hops_.url().to_string() + ": " +
                         cause.message());
  }
  cancel_timer(first_byte_timer_);
  queue_for_connection();
  return true;
}

void Transfer::fail(Error error) {
  if (phase_ == Phase::finished) return;
  if (exchange_.running()) {
    exchange_.abandon();
  } else if (phase_ == Phase::waiting_connection) {
    services_.pool.withdraw(*this);
  }
  if (phase_ == Phase::body) {
    // The total timeout is a deadline for the reader too: what is staged but not
    // taken by then (a rate-limited reader may hold seconds of it) is not delivered.
    const auto staged = error.code() == ErrorCode::total_timeout ? StagingBuffer::Staged::withheld
                                                                 : StagingBuffer::Staged::delivered;
    staging_->fail(std::move(error), services_.loop.now(), staged);
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
  cancel_timer(low_speed_timer_);
  body_.reset();  // a source's memory goes now, on the HTTP thread
  decoding_.release_if_empty();
  services_.owner.transfer_done(*this);
}

TransferStats Transfer::stats() const {
  TransferStats stats;
  stats.paused = paused();
  if (staging_) {
    stats.staged_bytes = staging_->staged_bytes();
    if (stats.staged_bytes == 0) stats.scratch_bytes = staging_->retained_capacity();
  }
  stats.scratch_bytes += decoding_.idle_capacity();
  if (body_) stats.request_body_bytes = body_->held_bytes();
  return stats;
}

}  // namespace sluice
