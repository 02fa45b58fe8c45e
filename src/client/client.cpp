// The public Client: validates a request on the caller's thread and hands it to the
// HTTP thread.
#include "sluice/client.hpp"

#include <condition_variable>
#include <limits>
#include <mutex>
#include <optional>

#include "auth/authentication.hpp"
#include "auth/credentials.hpp"
#include "auth/netrc.hpp"
#include "auth/proxy_choice.hpp"
#include "auth/request_credentials.hpp"
#include "body/request_body.hpp"
#include "client/client_access.hpp"
#include "client/client_core.hpp"
#include "client/fetch/transfer.hpp"
#include "client/pending_state.hpp"
#include "client/tls_settings.hpp"
#include "sluice/url.hpp"

namespace sluice {

struct Client::Impl {
  std::unique_ptr<ClientCore> core;
  // Read once by create(); then only read, by any thread that sends.
  std::optional<Netrc> netrc;
  NetrcMode netrc_mode = NetrcMode::off;
};

ClientCore& ClientAccess::core(Client& client) { return *client.impl_->core; }

namespace {

// The method as it may appear in a message: a CR, LF or NUL the caller put in it
// must not reach a log or a terminal raw.
std::string printable_method(const std::string& method) {
  std::string out;
  for (const char ch : method) {
    const auto c = static_cast<unsigned char>(ch);
    if (c >= 0x21 && c < 0x7F) {
      out += ch;
    } else {
      static const char kHex[] = "0123456789ABCDEF";
      out += "\\x";
      out += kHex[c >> 4];
      out += kHex[c & 0xF];
    }
  }
  return out;
}

Result<void> validate_request(const Request& request) {
  if (request.method.empty()) return Error(ErrorCategory::usage, "request method is empty");
  if (auto name = validate_header_name(request.method); !name) {
    return Error(ErrorCategory::usage,
                 "invalid request method '" + printable_method(request.method) +
                     "': a method is a token (letters, digits, !#$%&'*+-.^_`|~)");
  }
  for (const auto& header : request.headers) {
    if (auto valid = validate_header(header.name, header.value); !valid) return valid;
    if (iequals(header.name, "content-length") || iequals(header.name, "transfer-encoding")) {
      return Error(ErrorCategory::usage, "header '" + header.name +
                                             "' is set by sluice from the request body; remove it");
    }
  }
  return {};
}

// http://user:password@host/ asks for Basic authentication, as curl reads it: the
// credentials become an Authorization header (unless the request sets its own) and
// leave the URL, so no effective URL, trace or error message repeats them. A
// redirect to another origin drops the header (drop_credentials_across_origins).
Result<void> credentials_to_header(Url& url, Headers& headers) {
  if (url.userinfo.empty()) return {};
  auto credentials = basic_credentials(url.userinfo);
  if (!credentials) {
    return Error(ErrorCode::bad_url, "URL: the user name or password has a malformed %-escape");
  }
  if (!headers.contains("authorization")) headers.add("Authorization", *credentials);
  url = url.without_credentials();
  return {};
}

// `make()`'s value, made on the HTTP thread (at once when called from it); this waits
// for it. nullopt when the thread has ended.
template <class T, class Make>
std::optional<T> on_http_thread(ClientCore& core, Make make) {
  if (core.on_http_thread()) return make();  // from a callback: no round trip
  std::mutex mu;
  std::condition_variable done_cv;
  std::optional<T> result;
  const bool posted = core.poster()->post([&] {
    T made = make();
    std::lock_guard lock(mu);
    result = std::move(made);
    done_cv.notify_all();
  });
  if (!posted) return std::nullopt;
  std::unique_lock lock(mu);
  done_cv.wait(lock, [&] { return result.has_value(); });
  return result;
}

}  // namespace

Result<Client> Client::create(ClientOptions options) {
  return ClientAccess::create(std::move(options), SteadyClock::instance());
}

Result<Client> ClientAccess::create(ClientOptions options, const TimeSource& clock) {
  // Sent in every request that sets none of its own: a control byte (CR, LF, NUL)
  // would split the request head, so it is refused here, never sent.
  for (const char ch : options.user_agent) {
    const auto c = static_cast<unsigned char>(ch);
    if ((c < 0x20 && c != '\t') || c == 0x7F) {
      return Error(ErrorCategory::usage,
                   "ClientOptions::user_agent contains a control byte (CR, LF and NUL are "
                   "refused in anything sent on the wire)");
    }
  }
  auto proxies = ProxySettings::from(options);
  if (!proxies) return std::move(proxies).error();
  auto network = NetworkSettings::from(options);
  if (!network) return std::move(network).error();
  auto netrc = load_netrc(options);
  if (!netrc) return std::move(netrc).error();
  // Made even when no proxy is https: the trust store is read at its first use only.
  auto proxy_tls = TlsContext::create(proxy_tls_options(options));
  if (!proxy_tls) {
    return Error(proxy_tls.error().code(), "proxy_ca_file: " + proxy_tls.error().message());
  }
  auto tls = TlsContext::create(origin_tls_options(options));
  if (!tls) return std::move(tls).error();
  std::shared_ptr<HostDispatch> host;
  if (options.host_dispatch) {
    auto made = HostDispatch::create();
    if (!made) return std::move(made).error();
    host = std::move(*made);
    if (options.trace) {
      // The trace is user code too: each line waits for dispatch(), copied.
      options.trace = [host, trace = std::move(options.trace)](std::string_view line) {
        host->post([trace, text = std::string(line)] { trace(text); });
      };
    }
    if (options.wire_tap) {
      // So is the wire tap: its bytes are copied, as they live only during the call.
      options.wire_tap = [host, tap = std::move(options.wire_tap)](const WireChunk& chunk) {
        host->post(
            [tap, chunk, bytes = std::vector<std::byte>(chunk.bytes.begin(), chunk.bytes.end())] {
              WireChunk copy = chunk;
              copy.bytes = bytes;
              tap(copy);
            });
      };
    }
  }
  auto impl = std::make_unique<Client::Impl>();
  impl->netrc = std::move(*netrc);
  impl->netrc_mode = options.netrc;
  impl->core =
      std::make_unique<ClientCore>(std::move(options), std::move(*tls), clock, host,
                                   std::move(*proxies), std::move(*network), std::move(*proxy_tls));
  if (auto loop = impl->core->loop().status(); !loop) return std::move(loop).error();
  impl->core->start();
  return Client(std::move(impl));
}

Client::Client(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
Client::Client(Client&&) noexcept = default;
Client& Client::operator=(Client&&) noexcept = default;

Client::~Client() {
  if (!impl_ || !impl_->core) return;
  impl_->core->shutdown();
  // As curl at cleanup: what this run learned goes to the state files. Failures are
  // only for save_state() to report.
  (void)write_state_files(impl_->core->state_snapshot(true));
  // Shutdown failed what was in flight, and those callbacks wait for a dispatch()
  // that will not come: run them here, so each then() fires once. Callbacks caused
  // later (a paused body resumed, a then() on a decided response) run where they are
  // caused.
  if (const auto& host = impl_->core->host_dispatch()) {
    host->close();
    while (host->run() > 0) {}
  }
}

int Client::dispatch_fd() const noexcept {
  const auto& host = impl_->core->host_dispatch();
  return host ? host->fd() : -1;
}

std::size_t Client::dispatch() {
  const auto& host = impl_->core->host_dispatch();
  return host ? host->run() : 0;
}

PendingResponse Client::send(Request request) {
  ClientCore& core = *impl_->core;
  auto poster = core.poster();
  auto pending = std::make_shared<PendingState>();
  // Before anything decides: then() posts a decided response's callback through it
  // (through the host's queue with host dispatch).
  pending->poster = poster;
  pending->host = core.host_dispatch();
  PendingResponse handle(pending);
  auto url = Url::parse(request.url);
  if (!url) {
    pending->decide(std::move(url).error());
    return handle;
  }
  if (auto valid = validate_request(request); !valid) {
    pending->decide(std::move(valid).error());
    return handle;
  }
  // The netrc file's credentials (or the URL's, for Digest) when the request has none.
  if (auto chosen = choose_credentials(request, *url, impl_->netrc, impl_->netrc_mode); !chosen) {
    pending->decide(std::move(chosen).error());
    return handle;
  }
  // Request::auth first: it wins over credentials in the URL, as -u does in curl.
  if (auto added = authentication_to_header(request.auth, request.headers); !added) {
    pending->decide(std::move(added).error());
    return handle;
  }
  if (auto moved = credentials_to_header(*url, request.headers); !moved) {
    pending->decide(std::move(moved).error());
    return handle;
  }
  std::unique_ptr<RequestBodySource> body;
  if (!std::holds_alternative<std::monostate>(request.body)) {
    BodyEnvironment env;
    env.post = [poster](std::function<void()> task) { poster->post(std::move(task)); };
    env.file_pool = &core.file_pool();
    // Kept for a resend: no size is over the threshold, so the body goes when the
    // exchange ends.
    env.release_threshold = request.redirects.keep_body_for_resend
                                ? std::numeric_limits<std::size_t>::max()
                                : core.options().memory.release_threshold;
    // Owned bodies wait here, on the caller's thread, for the Client's upload budget;
    // never on the HTTP thread, which is what gives the budget back, and never with
    // host dispatch, whose host is an event loop that must not block (and whose
    // dispatch() is what lets responses, and so their uploads, move).
    env.upload_budget = core.upload_budget();
    env.may_wait_for_upload = !core.on_http_thread() && !core.host_dispatch();
    if (auto host = core.host_dispatch()) {
      env.run_user = [host](std::function<void()> task) { host->post(std::move(task)); };
    }
    auto source = make_body_source(request.body, env);
    if (!source) {
      pending->decide(std::move(source).error());
      return handle;
    }
    body = std::move(*source);
  }
  auto transfer = std::make_shared<Transfer>(core.transfer_services(), std::move(request),
                                             std::move(*url), pending, std::move(body));
  pending->transfer = transfer;
  ClientCore* core_ptr = &core;
  const bool posted = poster->post([core_ptr, transfer] { core_ptr->adopt(transfer); });
  if (!posted) pending->decide(Error(ErrorCategory::cancelled, "the client is shutting down"));
  return handle;
}

ClientStats Client::stats() const {
  ClientCore& core = *impl_->core;
  return on_http_thread<ClientStats>(core, [&] { return core.stats(); }).value_or(ClientStats{});
}

Result<void> Client::save_state() {
  ClientCore& core = *impl_->core;
  auto files =
      on_http_thread<std::vector<StateFileText>>(core, [&] { return core.state_snapshot(false); });
  return files ? write_state_files(*files) : Result<void>();
}

const char* to_string(HttpVersion version) noexcept {
  switch (version) {
    case HttpVersion::http1_0: return "1.0";
    case HttpVersion::http1_1: return "1.1";
    case HttpVersion::http2: return "2";
    case HttpVersion::http3: return "3";
  }
  return "?";
}

}  // namespace sluice
