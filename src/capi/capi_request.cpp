// The C API: building requests and streaming request bodies.
#include <chrono>
#include <cstdint>
#include <limits>

#include "capi/capi_call.hpp"
#include "capi/capi_handles.hpp"

using namespace sluice;
using namespace sluice::capi;

// sluice_request_set_version casts: the C values must follow sluice::VersionPolicy.
static_assert(static_cast<int>(VersionPolicy::automatic) == SLUICE_VERSION_AUTOMATIC);
static_assert(static_cast<int>(VersionPolicy::http1_only) == SLUICE_VERSION_HTTP1_ONLY);
static_assert(static_cast<int>(VersionPolicy::http2) == SLUICE_VERSION_HTTP2);
static_assert(static_cast<int>(VersionPolicy::http2_prior_knowledge) ==
              SLUICE_VERSION_HTTP2_PRIOR_KNOWLEDGE);
static_assert(static_cast<int>(VersionPolicy::http3) == SLUICE_VERSION_HTTP3);
static_assert(static_cast<int>(VersionPolicy::http3_only) == SLUICE_VERSION_HTTP3_ONLY);
static_assert(static_cast<int>(VersionPolicy::http1_0) == SLUICE_VERSION_HTTP1_0);

namespace {

// Runs `set` on a live request handle, or refuses the call.
template <class Set>
sluice_code with_request(const char* function, sluice_request* request, Set&& set) {
  if (!usable(request)) return invalid(function, "request is NULL or not a live request");
  return capi_call(function, [&] { return set(request->request); });
}

template <class Use>
sluice_code with_writer(const char* function, sluice_body_writer* writer, Use&& use) {
  if (!usable(writer)) return invalid(function, "writer is NULL or not a live body writer");
  return capi_call(function, [&] { return use(*writer->writer); });
}

sluice_code from(Result<void> result) { return result ? ok() : fail(result.error()); }

}  // namespace

extern "C" {

sluice_code sluice_request_new(const char* method, size_t method_len, const char* url,
                               size_t url_len, sluice_request** out) {
  if (out == nullptr) return invalid("sluice_request_new", "out is NULL");
  *out = nullptr;
  std::string_view method_text;
  std::string_view url_text;
  if (!text_argument(method, method_len, method_text) || method_text.empty()) {
    return invalid("sluice_request_new", "method is NULL, empty or holds a NUL byte");
  }
  if (!text_argument(url, url_len, url_text) || url_text.empty()) {
    return invalid("sluice_request_new", "url is NULL, empty or holds a NUL byte");
  }
  return capi_call("sluice_request_new", [&] {
    // A method is a token, as a header name is (RFC 9110 9.1 and 5.1).
    if (!validate_header_name(method_text)) {
      return fail(Error(ErrorCode::usage,
                        "method '" + std::string(method_text) + "' is not an HTTP token"));
    }
    auto handle = std::make_unique<sluice_request>();
    handle->request.method = std::string(method_text);
    handle->request.url = std::string(url_text);
    *out = handle.release();
    return ok();
  });
}

void sluice_request_free(sluice_request* request) {
  if (usable(request)) delete request;
}

sluice_code sluice_request_add_header(sluice_request* request, const char* name, size_t name_len,
                                      const char* value, size_t value_len) {
  std::string_view name_text;
  std::string_view value_text;
  // A NUL is refused by validate_header too; here it only must not cut the text short.
  if (name == nullptr || (value == nullptr && value_len != 0)) {
    return invalid("sluice_request_add_header", "name or value is NULL");
  }
  name_text = std::string_view(name, name_len);
  value_text = value == nullptr ? std::string_view() : std::string_view(value, value_len);
  return with_request("sluice_request_add_header", request, [&](Request& r) {
    if (auto valid = validate_header(name_text, value_text); !valid) return fail(valid.error());
    r.headers.add(std::string(name_text), std::string(value_text));
    return ok();
  });
}

sluice_code sluice_request_set_body_bytes(sluice_request* request, const void* data, size_t len) {
  if (data == nullptr && len != 0) return invalid("sluice_request_set_body_bytes", "data is NULL");
  return with_request("sluice_request_set_body_bytes", request, [&](Request& r) {
    r.body = BytesBody{std::string(static_cast<const char*>(data), len)};
    return ok();
  });
}

sluice_code sluice_request_set_body_lent(sluice_request* request, const void* data, size_t len,
                                         sluice_release_cb release, void* user_data) {
  if (data == nullptr && len != 0) return invalid("sluice_request_set_body_lent", "data is NULL");
  return with_request("sluice_request_set_body_lent", request, [&](Request& r) {
    std::function<void()> give_back;
    if (release != nullptr) give_back = [release, user_data] { release(user_data); };
    r.body = LentBody(std::span(static_cast<const std::byte*>(data), len), std::move(give_back));
    return ok();
  });
}

sluice_code sluice_request_set_body_file(sluice_request* request, const char* path,
                                         size_t path_len) {
  std::string_view text;
  if (!text_argument(path, path_len, text) || text.empty()) {
    return invalid("sluice_request_set_body_file", "path is NULL, empty or holds a NUL byte");
  }
  return with_request("sluice_request_set_body_file", request, [&](Request& r) {
    r.body = FileBody{std::string(text)};
    return ok();
  });
}

sluice_code sluice_request_set_body_writer(sluice_request* request, sluice_body_writer* writer,
                                           int64_t length) {
  if (!usable(writer)) {
    return invalid("sluice_request_set_body_writer", "writer is NULL or not a live body writer");
  }
  return with_request("sluice_request_set_body_writer", request, [&](Request& r) {
    StreamBody body{writer->writer, std::nullopt};
    if (length >= 0) body.length = static_cast<std::uint64_t>(length);
    r.body = std::move(body);
    return ok();
  });
}

sluice_code sluice_request_set_version(sluice_request* request, sluice_version_policy policy) {
  if (policy < SLUICE_VERSION_AUTOMATIC || policy > SLUICE_VERSION_HTTP1_0) {
    return invalid("sluice_request_set_version", "policy is not a sluice_version_policy");
  }
  return with_request("sluice_request_set_version", request, [&](Request& r) {
    // The C enum's values follow sluice::VersionPolicy's order.
    r.version = static_cast<VersionPolicy>(policy);
    return ok();
  });
}

sluice_code sluice_request_set_allowance(sluice_request* request, size_t initial_bytes,
                                         size_t max_bytes) {
  if (initial_bytes == 0 || max_bytes == 0) {
    return invalid("sluice_request_set_allowance", "the allowance must be at least 1 byte");
  }
  if (initial_bytes > max_bytes) {
    return invalid("sluice_request_set_allowance",
                   "initial_bytes (" + std::to_string(initial_bytes) + ") is above max_bytes (" +
                       std::to_string(max_bytes) + ")");
  }
  return with_request("sluice_request_set_allowance", request, [&](Request& r) {
    r.allowance = BodyAllowance{initial_bytes, max_bytes};
    return ok();
  });
}

sluice_code sluice_request_set_basic_auth(sluice_request* request, const char* user,
                                          size_t user_len, const char* password,
                                          size_t password_len) {
  std::string_view user_text, password_text;
  if (!text_argument(user, user_len, user_text) ||
      !text_argument(password, password_len, password_text)) {
    return invalid("sluice_request_set_basic_auth", "user or password is NULL or holds a NUL byte");
  }
  return with_request("sluice_request_set_basic_auth", request, [&](Request& r) {
    r.auth = Authentication::basic(std::string(user_text), std::string(password_text));
    return ok();
  });
}

sluice_code sluice_request_set_bearer_token(sluice_request* request, const char* token,
                                            size_t len) {
  std::string_view text;
  if (!text_argument(token, len, text)) {
    return invalid("sluice_request_set_bearer_token", "token is NULL or holds a NUL byte");
  }
  return with_request("sluice_request_set_bearer_token", request, [&](Request& r) {
    r.auth = Authentication::bearer(std::string(text));
    return ok();
  });
}

sluice_code sluice_request_set_timeout_ms(sluice_request* request, sluice_timeout which,
                                          uint32_t ms) {
  return with_request("sluice_request_set_timeout_ms", request, [&](Request& r) {
    const std::chrono::milliseconds value(ms);
    switch (which) {
      case SLUICE_TIMEOUT_CONNECT: r.timeouts.connect = value; return ok();
      case SLUICE_TIMEOUT_TLS: r.timeouts.tls = value; return ok();
      case SLUICE_TIMEOUT_FIRST_BYTE: r.timeouts.first_byte = value; return ok();
      case SLUICE_TIMEOUT_IDLE: r.timeouts.idle = value; return ok();
      case SLUICE_TIMEOUT_TOTAL: r.timeouts.total = value; return ok();
      case SLUICE_TIMEOUT_MAX_: break;  // only widens the type; any other int lands below
    }
    return invalid("sluice_request_set_timeout_ms", "which is not a sluice_timeout");
  });
}

sluice_code sluice_request_set_redirects(sluice_request* request, sluice_redirect_mode mode,
                                         int max_redirects) {
  if (max_redirects < 0) {
    return invalid("sluice_request_set_redirects", "max_redirects must not be negative");
  }
  if (mode < SLUICE_REDIRECT_MANUAL || mode > SLUICE_REDIRECT_ERROR) {
    return invalid("sluice_request_set_redirects", "mode is not a sluice_redirect_mode");
  }
  return with_request("sluice_request_set_redirects", request, [&](Request& r) {
    r.redirects.follow = mode == SLUICE_REDIRECT_FOLLOW;
    r.redirects.fail_on_redirect = mode == SLUICE_REDIRECT_ERROR;
    r.redirects.max_redirects = max_redirects;
    return ok();
  });
}

sluice_code sluice_request_set_redirect_rules(sluice_request* request, unsigned rules,
                                              const uint16_t* refused_ports, size_t n_ports) {
  constexpr unsigned kKnown = SLUICE_REDIRECT_ALLOW_HTTPS_TO_HTTP |
                              SLUICE_REDIRECT_NEVER_RESEND_STREAM | SLUICE_REDIRECT_KEEP_BODY;
  if ((rules & ~kKnown) != 0) {
    return invalid("sluice_request_set_redirect_rules",
                   "rules holds a flag that is not a sluice_redirect_rule");
  }
  if (refused_ports == nullptr && n_ports != 0) {
    return invalid("sluice_request_set_redirect_rules",
                   "refused_ports is NULL but n_ports is not 0");
  }
  return with_request("sluice_request_set_redirect_rules", request, [&](Request& r) {
    r.redirects.allow_https_to_http = (rules & SLUICE_REDIRECT_ALLOW_HTTPS_TO_HTTP) != 0;
    r.redirects.resend_unsent_stream = (rules & SLUICE_REDIRECT_NEVER_RESEND_STREAM) == 0;
    r.redirects.keep_body_for_resend = (rules & SLUICE_REDIRECT_KEEP_BODY) != 0;
    r.redirects.refused_ports.assign(refused_ports, refused_ports + n_ports);
    return ok();
  });
}

sluice_code sluice_request_set_decode(sluice_request* request, int enabled) {
  return with_request("sluice_request_set_decode", request, [&](Request& r) {
    r.decode.enabled = enabled != 0;
    return ok();
  });
}

sluice_code sluice_request_set_max_body_size(sluice_request* request, uint64_t bytes) {
  return with_request("sluice_request_set_max_body_size", request, [&](Request& r) {
    r.max_body_size = bytes;
    return ok();
  });
}

sluice_code sluice_body_writer_new(size_t mark, sluice_body_writer** out) {
  if (out == nullptr) return invalid("sluice_body_writer_new", "out is NULL");
  *out = nullptr;
  if (mark == 0) return invalid("sluice_body_writer_new", "mark must be at least 1 byte");
  return capi_call("sluice_body_writer_new", [&] {
    auto handle = std::make_unique<sluice_body_writer>();
    handle->writer = BodyWriter::create(mark);
    *out = handle.release();
    return ok();
  });
}

void sluice_body_writer_free(sluice_body_writer* writer) {
  if (usable(writer)) delete writer;
}

sluice_code sluice_body_writer_write(sluice_body_writer* writer, const void* data, size_t len) {
  if (data == nullptr && len != 0) return invalid("sluice_body_writer_write", "data is NULL");
  return with_writer("sluice_body_writer_write", writer, [&](BodyWriter& w) {
    return from(w.write(std::span(static_cast<const std::byte*>(data), len)));
  });
}

sluice_code sluice_body_writer_write_timeout(sluice_body_writer* writer, const void* data,
                                             size_t len, uint32_t timeout_ms) {
  if (data == nullptr && len != 0) {
    return invalid("sluice_body_writer_write_timeout", "data is NULL");
  }
  return with_writer("sluice_body_writer_write_timeout", writer, [&](BodyWriter& w) {
    auto written = w.write_for(std::span(static_cast<const std::byte*>(data), len),
                               std::chrono::milliseconds(timeout_ms));
    if (!written) return fail(written.error());
    return *written ? ok() : SLUICE_WOULD_BLOCK;
  });
}

sluice_code sluice_body_writer_when_writable(sluice_body_writer* writer, sluice_writable_cb ready,
                                             void* user_data) {
  if (ready == nullptr) return invalid("sluice_body_writer_when_writable", "ready is NULL");
  return with_writer("sluice_body_writer_when_writable", writer, [&](BodyWriter& w) {
    w.when_writable([ready, user_data] { ready(user_data); });
    return ok();
  });
}

sluice_code sluice_body_writer_close(sluice_body_writer* writer) {
  return with_writer("sluice_body_writer_close", writer, [&](BodyWriter& w) {
    w.close();
    return ok();
  });
}

sluice_code sluice_body_writer_abort(sluice_body_writer* writer, const char* reason,
                                     size_t reason_len) {
  std::string_view text;
  if (!text_argument(reason, reason_len, text)) {
    return invalid("sluice_body_writer_abort", "reason is NULL or holds a NUL byte");
  }
  return with_writer("sluice_body_writer_abort", writer, [&](BodyWriter& w) {
    w.abort(text.empty() ? std::string("request body aborted") : std::string(text));
    return ok();
  });
}

}  // extern "C"
