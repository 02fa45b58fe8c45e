// The C API: a client's proxy options (ClientOptions::proxy, proxy_user, no_proxy,
// proxy_from_environment, proxy_tunnel, proxy_ca_file, proxy_insecure). Checked when the
// client is made.
#include <string>
#include <string_view>

#include "capi/capi_call.hpp"
#include "capi/capi_handles.hpp"

using namespace sluice;
using namespace sluice::capi;

extern "C" {

sluice_code sluice_client_options_set_proxy(sluice_client_options* options, const char* url,
                                            size_t len) {
  return set_text_option("sluice_client_options_set_proxy", options, url, len, &ClientOptions::proxy);
}

sluice_code sluice_client_options_set_proxy_user(sluice_client_options* options,
                                                 const char* user_password, size_t len) {
  return set_text_option("sluice_client_options_set_proxy_user", options, user_password, len,
                  &ClientOptions::proxy_user);
}

sluice_code sluice_client_options_set_no_proxy(sluice_client_options* options, const char* list,
                                               size_t len) {
  std::string_view text;
  if (!text_argument(list, len, text)) {
    return invalid("sluice_client_options_set_no_proxy", "list is NULL or holds a NUL byte");
  }
  return with_options("sluice_client_options_set_no_proxy", options, [&](ClientOptions& o) {
    o.no_proxy = std::string(text);  // even "": exactly this list, none from the environment
    return ok();
  });
}

sluice_code sluice_client_options_set_proxy_from_environment(sluice_client_options* options,
                                                             int enabled) {
  return with_options("sluice_client_options_set_proxy_from_environment", options,
                      [&](ClientOptions& o) {
                        o.proxy_from_environment = enabled != 0;
                        return ok();
                      });
}

sluice_code sluice_client_options_set_proxy_ca_file(sluice_client_options* options,
                                                    const char* path, size_t len) {
  return set_text_option("sluice_client_options_set_proxy_ca_file", options, path, len,
                  &ClientOptions::proxy_ca_file);
}

sluice_code sluice_client_options_set_proxy_insecure(sluice_client_options* options, int insecure) {
  return with_options("sluice_client_options_set_proxy_insecure", options, [&](ClientOptions& o) {
    o.proxy_insecure = insecure != 0;
    return ok();
  });
}

sluice_code sluice_client_options_set_proxy_tunnel(sluice_client_options* options, int enabled) {
  return with_options("sluice_client_options_set_proxy_tunnel", options, [&](ClientOptions& o) {
    o.proxy_tunnel = enabled != 0;
    return ok();
  });
}

}  // extern "C"
