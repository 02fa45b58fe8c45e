// FetchHops: the per-hop policy of one fetch (see fetch_hops.hpp).
// Thread-safety: HTTP thread only.

#include "client/fetch/fetch_hops.hpp"

#include <utility>

#include "client/state_files.hpp"
#include "sluice/cookies.hpp"
#include "sluice/request.hpp"

namespace sluice {

namespace {

// GOAWAY and REFUSED_STREAM say the server did not process a request. A server
// shutting down can say it again on the next connection; past this it is an error.
constexpr int kMaxUnprocessedResends = 2;
// A refused 0-RTT send goes again after the handshake on the same connection, so
// one refusal per connection the request tries; two allow a second early attempt.
constexpr int kMaxEarlyResends = 2;

}  // namespace

FetchHops::FetchHops(Context context, Request& request, Url url)
    : context_(context),
      version_(request.version),
      redirect_policy_(request.redirects),
      headers_(std::move(request.headers)),
      url_(std::move(url)),
      method_(request.method),
      // A request that brings its own Authorization answers no challenge itself.
      auth_(headers_.contains("authorization") ? Authentication{} : request.auth) {
  // As curl, a request that brings its own Authorization is not signed either.
  if (request.auth.scheme == Authentication::Scheme::aws_sigv4 &&
      !headers_.contains("authorization")) {
    signing_ = request.auth;
  }
  upgrade_by_hsts();
}

// Before any connection, for the first hop and every redirect (RFC 6797 section
// 8.3). Another port than 80 is kept, as curl keeps it.
void FetchHops::upgrade_by_hsts() {
  if (context_.hsts == nullptr || url_.scheme != "http" ||
      !context_.hsts->applies_to(url_.host, wall_clock_now())) {
    return;
  }
  const std::string before = url_.to_string();
  url_.scheme = "https";
  if (url_.port == 80) url_.port = 443;
  if (context_.trace.on()) context_.trace.emit("HSTS: " + before + " -> " + url_.to_string());
}

Result<void> FetchHops::choose_proxy() {
  if (auto scoped = choose_signing_scope(); !scoped) return scoped;
  // QUIC is UDP: a Unix socket carries only what goes over TCP.
  const std::string& unix_socket = context_.network.unix_socket;
  if (version_ == VersionPolicy::http3_only && !unix_socket.empty()) {
    return Error(ErrorCategory::usage, "HTTP/3 cannot go over the Unix socket " + unix_socket +
                                           " (QUIC is UDP): allow another version");
  }
  proxy_ = context_.proxies.route_for(url_);
  if (!proxy_) return {};
  if (version_ == VersionPolicy::http3_only) {
    return Error(ErrorCategory::usage, "HTTP/3 cannot go through proxy " + proxy_->display +
                                           " (QUIC is UDP): allow another version, or exempt " +
                                           url_.host + " with no_proxy");
  }
  // h2c by prior knowledge speaks HTTP/2 from the first byte: only a tunnel carries it.
  if (version_ == VersionPolicy::http2_prior_knowledge) proxy_->tunnel = true;
  return {};
}

std::string FetchHops::request_target() const {
  // A proxy that forwards (no tunnel) takes the whole URL in the request line.
  if (proxy_ && !proxy_->tunnel) return url_.scheme + "://" + url_.authority() + url_.target();
  return url_.target();
}

Headers FetchHops::request_headers(std::string_view accept_encoding,
                                   std::optional<std::string_view> payload) const {
  Headers headers;
  // Room for the defaults added below: the copy, then no reallocation.
  headers.reserve(headers_.size() + 4);
  headers = headers_;
  if (!headers.contains("user-agent")) headers.add("User-Agent", context_.options.user_agent);
  if (!headers.contains("accept")) headers.add("Accept", "*/*");
  const bool forward_proxy = proxy_ && !proxy_->tunnel;
  if (forward_proxy && !proxy_->authorization.empty() && !headers.contains("proxy-authorization")) {
    headers.add("Proxy-Authorization", proxy_->authorization);
  }
  if (!auth_header_.empty() && !headers.contains("authorization")) {
    headers.add("Authorization", auth_header_);
  }
  add_signature(headers, payload);
  if (!accept_encoding.empty() && !headers.contains("accept-encoding")) {
    headers.add("Accept-Encoding", std::string(accept_encoding));
  }
  add_jar_cookies(headers);
  return headers;
}

// The hop's scope, completed from its host, and a trial signature: what cannot sign
// fails the hop before it connects instead of going out unsigned.
Result<void> FetchHops::choose_signing_scope() {
  signing_scope_.reset();
  if (signing_.scheme != Authentication::Scheme::aws_sigv4) return {};
  if (signing_.user.empty()) {
    return Error(ErrorCategory::usage,
                 "--aws-sigv4: no access key to sign with (give -u ACCESS_KEY:SECRET_KEY)");
  }
  auto scope = AwsSigV4Scope::parse(signing_.aws_scope, url_.host);
  if (!scope) return std::move(scope).error();
  const std::string authority = url_.authority();  // the request's views point into it
  const AwsSigV4Request trial{method_, authority, url_.path, url_.query, &headers_, ""};
  auto signed_hop = aws_sigv4_sign(*scope, signing_.user, signing_.password, trial,
                                   std::chrono::system_clock::time_point{});
  if (!signed_hop) return std::move(signed_hop).error();
  signing_scope_ = std::move(*scope);
  return {};
}

// Signed for every attempt, so each carries the time it goes out at (AWS refuses a
// signature more than 15 minutes off), over the request's own fields: the defaults
// added here are left unsigned, as curl leaves them.
void FetchHops::add_signature(Headers& headers, std::optional<std::string_view> payload) const {
  if (!signing_scope_ || headers.contains("authorization")) return;
  const auto now = wall_clock_ ? wall_clock_() : std::chrono::system_clock::now();
  const std::string authority = url_.authority();  // the request's views point into it
  const AwsSigV4Request hop{method_, authority, url_.path, url_.query, &headers_, payload};
  auto signed_hop = aws_sigv4_sign(*signing_scope_, signing_.user, signing_.password, hop, now);
  if (!signed_hop) return;  // choose_signing_scope() tried the same fields already
  for (const Header& field : signed_hop->headers) headers.add(field.name, field.value);
  if (context_.trace.on()) {
    context_.trace.emit("aws-sigv4: signed " + method_ + " " + authority + url_.path + " with " +
                        signing_scope_->region + "/" + signing_scope_->service);
  }
}

// Built for every attempt and every redirect hop, so each carries the jar's cookies
// for its own URL as they are now (a hop's Set-Cookie is already stored).
void FetchHops::add_jar_cookies(Headers& headers) const {
  const auto& jar = context_.options.cookie_jar;
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

// Every response's Set-Cookie, a redirect's and a 401's too, before the next hop is
// planned.
void FetchHops::store_cookies(const Headers& headers) {
  const auto& jar = context_.options.cookie_jar;
  if (!jar) return;
  for (std::string_view field : headers.get_all("set-cookie")) {
    const SetCookieOutcome outcome = jar->set_cookie(url_, field);
    if (outcome.kind == SetCookieOutcome::Kind::refused && context_.trace.on()) {
      context_.trace.emit("cookie refused from " + url_.origin() + ": " + outcome.reason);
    }
  }
}

Result<FetchHops::Verdict> FetchHops::on_head(int status, const Headers& headers,
                                              std::optional<std::string_view> entity_body) {
  store_cookies(headers);
  if (status == 401) {
    if (auto answer = auth_.answer(headers, method_, url_.target(), entity_body)) {
      if (!*answer) return std::move(*answer).error();
      auth_header_ = std::move(**answer);
      return Verdict::challenge;
    }
  }
  if (!is_redirect_status(status)) return Verdict::answer;
  if (redirect_policy_.follow) {
    auto step = plan_redirect(url_, method_, status, headers, redirects_, redirect_policy_);
    if (!step) return std::move(step).error();
    next_hop_ = std::move(*step);
    return Verdict::redirect;
  }
  if (redirect_policy_.fail_on_redirect && headers.contains("location")) {
    return Error(ErrorCode::redirect_refused, "the server redirected (" + std::to_string(status) +
                                                  " to '" + std::string(*headers.get("location")) +
                                                  "') and the request refuses redirects");
  }
  return Verdict::answer;
}

Result<void> FetchHops::follow_redirect(bool body_left_behind) {
  RedirectStep step = std::move(*next_hop_);
  next_hop_.reset();
  const bool trusted = credentials_follow(url_, step.next, redirect_policy_);
  if (!trusted) drop_credentials_across_origins(url_, step.next, headers_);
  auth_.on_redirect(!trusted);
  if (!trusted) signing_ = Authentication{};
  auth_header_.clear();
  // Credentials a Location carries are not sent (curl neither) and must not show in
  // the effective URL or the trace.
  step.next = step.next.without_credentials();
  if (body_left_behind) headers_.remove("content-type");
  if (step.referer) headers_.set("Referer", std::move(*step.referer));
  if (context_.trace.on()) {
    context_.trace.emit("redirect " + std::to_string(redirects_ + 1) + ": " + method_ + " " +
                        url_.to_string() + " -> " + step.method + " " + step.next.to_string());
  }
  url_ = std::move(step.next);
  method_ = std::move(step.method);
  ++redirects_;
  upgrade_by_hsts();
  return choose_proxy();
}

void FetchHops::resend_authenticated() {
  if (context_.trace.on()) {
    context_.trace.emit("auth: 401 from " + url_.origin() + ", sending again with " +
                        auth_.last_scheme());
  }
}

bool FetchHops::may_resend_after_dead_connection() const {
  return !resent_after_dead_ && is_idempotent_method(method_);
}

bool FetchHops::may_resend_unprocessed() const {
  return unprocessed_resends_ < kMaxUnprocessedResends;
}

bool FetchHops::may_resend_early() const { return early_resends_ < kMaxEarlyResends; }

}  // namespace sluice
