#include "request_spec.hpp"

#include <cstdint>
#include <string>
#include <vector>

#include "js_error.hpp"
#include "lent_body.hpp"
#include "napi_util.hpp"

namespace sluice_node {
namespace {

void add_headers(napi_env env, sluice_request* request, napi_value headers) {
  bool is_array = false;
  check(env, napi_is_array(env, headers, &is_array));
  if (!is_array) throw_type_error(env, "spec.headers must be an array");
  std::uint32_t length = 0;
  check(env, napi_get_array_length(env, headers, &length));
  for (std::uint32_t i = 0; i + 1 < length; i += 2) {
    napi_value name_value = nullptr;
    napi_value value_value = nullptr;
    check(env, napi_get_element(env, headers, i, &name_value));
    check(env, napi_get_element(env, headers, i + 1, &value_value));
    const std::string name = string_latin1(env, name_value, "a header name");
    const std::string value = string_latin1(env, value_value, "a header value");
    check_sluice(env, sluice_request_add_header(request, name.data(), name.size(), value.data(),
                                                value.size()));
  }
}

void set_timeouts(napi_env env, sluice_request* request, napi_value timeouts) {
  if (is_nullish(env, timeouts)) return;
  struct Named {
    const char* name;
    sluice_timeout which;
  };
  static constexpr Named kTimeouts[] = {{"connect", SLUICE_TIMEOUT_CONNECT},
                                        {"tls", SLUICE_TIMEOUT_TLS},
                                        {"firstByte", SLUICE_TIMEOUT_FIRST_BYTE},
                                        {"idle", SLUICE_TIMEOUT_IDLE},
                                        {"total", SLUICE_TIMEOUT_TOTAL}};
  for (const Named& timeout : kTimeouts) {
    napi_value ms = property(env, timeouts, timeout.name);
    if (is_nullish(env, ms)) continue;
    check_sluice(env, sluice_request_set_timeout_ms(
                          request, timeout.which,
                          static_cast<std::uint32_t>(count_of(env, ms, timeout.name, UINT32_MAX))));
  }
}

void set_allowance(napi_env env, sluice_request* request, napi_value allowance) {
  if (is_nullish(env, allowance)) return;
  napi_value initial = nullptr;
  napi_value max = nullptr;
  check(env, napi_get_element(env, allowance, 0, &initial));
  check(env, napi_get_element(env, allowance, 1, &max));
  constexpr std::uint64_t kLimit = std::uint64_t{1} << 40;
  check_sluice(env,
               sluice_request_set_allowance(
                   request, static_cast<std::size_t>(count_of(env, initial, "allowance", kLimit)),
                   static_cast<std::size_t>(count_of(env, max, "allowance", kLimit))));
}

// As Node's fetch: https may lead to http, and the fetch standard's checks hold on
// every hop, not only the first URL (which lib/fetch.mjs checked).
void set_redirect_rules(napi_env env, sluice_request* request, napi_value spec) {
  unsigned rules = SLUICE_REDIRECT_ALLOW_HTTPS_TO_HTTP;
  napi_value resend = property(env, spec, "resendStream");
  if (!is_nullish(env, resend) && !bool_of(env, resend, "spec.resendStream")) {
    rules |= SLUICE_REDIRECT_NEVER_RESEND_STREAM;
  }
  napi_value keep = property(env, spec, "keepBody");
  if (!is_nullish(env, keep) && bool_of(env, keep, "spec.keepBody")) {
    rules |= SLUICE_REDIRECT_KEEP_BODY;
  }
  napi_value list = property(env, spec, "refusedPorts");
  std::uint32_t count = 0;
  if (!is_nullish(env, list)) check(env, napi_get_array_length(env, list, &count));
  std::vector<std::uint16_t> ports;
  ports.reserve(count);
  for (std::uint32_t i = 0; i < count; ++i) {
    napi_value port = nullptr;
    check(env, napi_get_element(env, list, i, &port));
    ports.push_back(static_cast<std::uint16_t>(count_of(env, port, "spec.refusedPorts", 65535)));
  }
  check_sluice(env, sluice_request_set_redirect_rules(request, rules, ports.data(), ports.size()));
}

void set_policies(napi_env env, sluice_request* request, napi_value spec) {
  const auto version = count_of(env, property(env, spec, "version"), "spec.version", 100);
  if (version != SLUICE_VERSION_AUTOMATIC) {
    check_sluice(env,
                 sluice_request_set_version(request, static_cast<sluice_version_policy>(version)));
  }
  const auto redirect = count_of(env, property(env, spec, "redirect"), "spec.redirect", 100);
  const auto max_redirects =
      count_of(env, property(env, spec, "maxRedirects"), "spec.maxRedirects", 1000);
  check_sluice(env,
               sluice_request_set_redirects(request, static_cast<sluice_redirect_mode>(redirect),
                                            static_cast<int>(max_redirects)));
  set_redirect_rules(env, request, spec);
  if (bool_of(env, property(env, spec, "decode"), "spec.decode")) {
    check_sluice(env, sluice_request_set_decode(request, 1));
  }
  napi_value max_body = property(env, spec, "maxBodySize");
  if (!is_nullish(env, max_body)) {
    check_sluice(env, sluice_request_set_max_body_size(
                          request, count_of(env, max_body, "maxBodySize", std::uint64_t{1} << 53)));
  }
  set_timeouts(env, request, property(env, spec, "timeouts"));
  set_allowance(env, request, property(env, spec, "allowance"));
}

WriterPtr set_body(napi_env env, sluice_request* request, napi_value spec) {
  napi_value body = property(env, spec, "body");
  if (!is_nullish(env, body)) {
    lend_body(env, request, body);
    return nullptr;
  }
  napi_value stream = property(env, spec, "stream");
  if (is_nullish(env, stream) || !bool_of(env, stream, "spec.stream")) return nullptr;
  const auto mark =
      count_of(env, property(env, spec, "uploadMark"), "uploadMark", std::uint64_t{1} << 40);
  sluice_body_writer* raw = nullptr;
  check_sluice(env, sluice_body_writer_new(static_cast<std::size_t>(mark), &raw));
  WriterPtr writer(raw);
  // A Blob's or FormData's length is known before its stream starts: declared, it
  // goes as Content-Length (and a stream that ends short or long fails the request).
  napi_value length = property(env, spec, "streamLength");
  const std::int64_t declared =
      is_nullish(env, length) ? -1
                              : static_cast<std::int64_t>(count_of(env, length, "spec.streamLength",
                                                                   std::uint64_t{1} << 53));
  check_sluice(env, sluice_request_set_body_writer(request, writer.get(), declared));
  return writer;
}

}  // namespace

BuiltRequest request_from(napi_env env, napi_value spec) {
  if (type_of(env, spec) != napi_object)
    throw_type_error(env, "the request spec must be an object");
  const std::string method = string_utf8(env, property(env, spec, "method"), "spec.method");
  const std::string url = string_utf8(env, property(env, spec, "url"), "spec.url");
  sluice_request* raw = nullptr;
  check_sluice(env, sluice_request_new(method.data(), method.size(), url.data(), url.size(), &raw));
  BuiltRequest built{RequestPtr(raw), nullptr};
  add_headers(env, raw, property(env, spec, "headers"));
  set_policies(env, raw, spec);
  built.writer = set_body(env, raw, spec);
  return built;
}

}  // namespace sluice_node
