// The C API: Digest, "any" and AWS SigV4 authentication on a request
// (Request::auth) and the netrc options of a client (ClientOptions::netrc, netrc_file).
#include <functional>
#include <string>
#include <string_view>

#include "capi/capi_call.hpp"
#include "capi/capi_handles.hpp"

using namespace sluice;
using namespace sluice::capi;

static_assert(static_cast<int>(NetrcMode::off) == SLUICE_NETRC_OFF);
static_assert(static_cast<int>(NetrcMode::optional) == SLUICE_NETRC_OPTIONAL);
static_assert(static_cast<int>(NetrcMode::required) == SLUICE_NETRC_REQUIRED);

namespace {

using MakeAuth = std::function<Authentication(std::string, std::string)>;

sluice_code set_auth(const char* function, sluice_request* request, const char* user,
                     size_t user_len, const char* password, size_t password_len,
                     const MakeAuth& make) {
  std::string_view user_text, password_text;
  if (!text_argument(user, user_len, user_text) ||
      !text_argument(password, password_len, password_text)) {
    return invalid(function, "user or password is NULL or holds a NUL byte");
  }
  if (!usable(request)) return invalid(function, "request is NULL or not a live request");
  return capi_call(function, [&] {
    request->request.auth = make(std::string(user_text), std::string(password_text));
    return ok();
  });
}

}  // namespace

extern "C" {

sluice_code sluice_request_set_digest_auth(sluice_request* request, const char* user,
                                           size_t user_len, const char* password,
                                           size_t password_len) {
  return set_auth("sluice_request_set_digest_auth", request, user, user_len, password, password_len,
                  &Authentication::digest);
}

sluice_code sluice_request_set_any_auth(sluice_request* request, const char* user, size_t user_len,
                                        const char* password, size_t password_len) {
  return set_auth("sluice_request_set_any_auth", request, user, user_len, password, password_len,
                  &Authentication::any);
}

sluice_code sluice_request_set_aws_sigv4(sluice_request* request, const char* access_key,
                                         size_t access_key_len, const char* secret_key,
                                         size_t secret_key_len, const char* scope,
                                         size_t scope_len) {
  std::string_view scope_text;
  if (!text_argument(scope, scope_len, scope_text)) {
    return invalid("sluice_request_set_aws_sigv4", "scope is NULL or holds a NUL byte");
  }
  return set_auth("sluice_request_set_aws_sigv4", request, access_key, access_key_len, secret_key,
                  secret_key_len, [&](std::string key, std::string secret) {
                    return Authentication::aws_sigv4(std::move(key), std::move(secret),
                                                     std::string(scope_text));
                  });
}

sluice_code sluice_client_options_set_netrc(sluice_client_options* options, sluice_netrc_mode mode,
                                            const char* file, size_t file_len) {
  if (mode < SLUICE_NETRC_OFF || mode > SLUICE_NETRC_REQUIRED) {
    return invalid("sluice_client_options_set_netrc", "mode is not a sluice_netrc_mode");
  }
  std::string_view path;
  if (!text_argument(file, file_len, path)) {
    return invalid("sluice_client_options_set_netrc", "file is NULL or holds a NUL byte");
  }
  return with_options("sluice_client_options_set_netrc", options, [&](ClientOptions& o) {
    o.netrc = static_cast<NetrcMode>(mode);
    o.netrc_file = std::string(path);
    return ok();
  });
}

}  // extern "C"
