// The C API: a client's TLS options (ClientOptions::client_cert and the rest, see
// sluice/client.hpp). Files and lists are checked when the client is made.
#include <string>

#include "capi/capi_call.hpp"
#include "capi/capi_handles.hpp"

using namespace sluice;
using namespace sluice::capi;

namespace {

bool tls_version_of(int value, TlsVersion& out) {
  if (value == SLUICE_TLS_1_2) out = TlsVersion::v1_2;
  else if (value == SLUICE_TLS_1_3) out = TlsVersion::v1_3;
  else return false;
  return true;
}

}  // namespace

extern "C" {

sluice_code sluice_client_options_set_client_cert(sluice_client_options* options,
                                                  const char* path, size_t len) {
  return set_text_option("sluice_client_options_set_client_cert", options, path, len,
                         &ClientOptions::client_cert);
}

sluice_code sluice_client_options_set_client_key(sluice_client_options* options,
                                                 const char* path, size_t len) {
  return set_text_option("sluice_client_options_set_client_key", options, path, len,
                         &ClientOptions::client_key);
}

sluice_code sluice_client_options_set_key_password(sluice_client_options* options,
                                                   const char* password, size_t len) {
  return set_text_option("sluice_client_options_set_key_password", options, password, len,
                         &ClientOptions::key_password);
}

sluice_code sluice_client_options_set_ca_path(sluice_client_options* options, const char* path,
                                              size_t len) {
  return set_text_option("sluice_client_options_set_ca_path", options, path, len,
                         &ClientOptions::ca_path);
}

sluice_code sluice_client_options_set_pinned_public_key(sluice_client_options* options,
                                                        const char* pins, size_t len) {
  return set_text_option("sluice_client_options_set_pinned_public_key", options, pins, len,
                         &ClientOptions::pinned_public_key);
}

sluice_code sluice_client_options_set_tls12_ciphers(sluice_client_options* options,
                                                    const char* list, size_t len) {
  return set_text_option("sluice_client_options_set_tls12_ciphers", options, list, len,
                         &ClientOptions::tls12_ciphers);
}

sluice_code sluice_client_options_set_tls13_ciphers(sluice_client_options* options,
                                                    const char* list, size_t len) {
  return set_text_option("sluice_client_options_set_tls13_ciphers", options, list, len,
                         &ClientOptions::tls13_ciphers);
}

sluice_code sluice_client_options_set_key_log_file(sluice_client_options* options,
                                                   const char* path, size_t len) {
  return set_text_option("sluice_client_options_set_key_log_file", options, path, len,
                         &ClientOptions::key_log_file);
}

sluice_code sluice_client_options_set_tls_versions(sluice_client_options* options, int min,
                                                   int max) {
  TlsVersion low{}, high{};
  if (!tls_version_of(min, low) || !tls_version_of(max, high) || min > max) {
    return invalid("sluice_client_options_set_tls_versions",
                   "min and max must be SLUICE_TLS_1_2 or SLUICE_TLS_1_3, min <= max");
  }
  return with_options("sluice_client_options_set_tls_versions", options, [&](ClientOptions& o) {
    o.tls_min_version = low;
    o.tls_max_version = high;
    return ok();
  });
}

sluice_code sluice_client_options_set_tls_session_cache(sluice_client_options* options,
                                                        int enabled) {
  return with_options("sluice_client_options_set_tls_session_cache", options,
                      [&](ClientOptions& o) {
                        o.tls_session_cache = enabled != 0;
                        return ok();
                      });
}

sluice_code sluice_client_options_set_tls_early_data(sluice_client_options* options,
                                                     int enabled) {
  return with_options("sluice_client_options_set_tls_early_data", options,
                      [&](ClientOptions& o) {
                        o.tls_early_data = enabled != 0;
                        return ok();
                      });
}

}  // extern "C"
