// The C API: what TLS did on a response's connection (Response::tls, a TlsInfo).
#include <chrono>
#include <string>

#include "capi/capi_call.hpp"
#include "capi/capi_handles.hpp"

using namespace sluice;
using namespace sluice::capi;

namespace {

// The field's string, or null when the response has none (no TLS, no certificate).
const std::string* field_of(const TlsInfo& tls, sluice_tls_field field) {
  switch (field) {
    case SLUICE_TLS_VERSION: return &tls.version;
    case SLUICE_TLS_CIPHER: return &tls.cipher;
    case SLUICE_TLS_ALPN: return &tls.alpn;
    case SLUICE_TLS_CERT_SUBJECT: return tls.certificate ? &tls.certificate->subject : nullptr;
    case SLUICE_TLS_CERT_ISSUER: return tls.certificate ? &tls.certificate->issuer : nullptr;
    case SLUICE_TLS_MATCHED_NAME: return &tls.matched_name;
    case SLUICE_TLS_FIELD_MAX_: break;
  }
  return nullptr;
}

bool known_field(sluice_tls_field field) {
  return field >= SLUICE_TLS_VERSION && field <= SLUICE_TLS_MATCHED_NAME;
}

sluice_code string_out(const std::string* text, const char** value, size_t* len) {
  *value = text != nullptr ? text->c_str() : nullptr;
  *len = text != nullptr ? text->size() : 0;
  return ok();
}

std::int64_t unix_seconds(std::chrono::system_clock::time_point at) {
  return std::chrono::duration_cast<std::chrono::seconds>(at.time_since_epoch()).count();
}

}  // namespace

extern "C" {

sluice_code sluice_response_tls(const sluice_response* response, sluice_tls_field field,
                                const char** value, size_t* len) {
  if (!usable(response)) return invalid("sluice_response_tls", "response is not live");
  if (value == nullptr || len == nullptr)
    return invalid("sluice_response_tls", "value or len is NULL");
  if (!known_field(field)) return invalid("sluice_response_tls", "field is not a sluice_tls_field");
  const auto& tls = response->response.tls;
  return string_out(tls ? field_of(*tls, field) : nullptr, value, len);
}

sluice_code sluice_response_tls_cert_san(const sluice_response* response, size_t index,
                                         const char** value, size_t* len) {
  if (!usable(response)) return invalid("sluice_response_tls_cert_san", "response is not live");
  if (value == nullptr || len == nullptr) {
    return invalid("sluice_response_tls_cert_san", "value or len is NULL");
  }
  const auto& tls = response->response.tls;
  const std::string* name = nullptr;
  if (tls && tls->certificate && index < tls->certificate->subject_alt_names.size()) {
    name = &tls->certificate->subject_alt_names[index];
  }
  return string_out(name, value, len);
}

sluice_code sluice_response_tls_cert_validity(const sluice_response* response, int64_t* not_before,
                                              int64_t* not_after, int* has_certificate) {
  const char* function = "sluice_response_tls_cert_validity";
  if (!usable(response)) return invalid(function, "response is not live");
  if (not_before == nullptr || not_after == nullptr || has_certificate == nullptr) {
    return invalid(function, "not_before, not_after or has_certificate is NULL");
  }
  const auto& tls = response->response.tls;
  const bool has = tls && tls->certificate;
  *has_certificate = has ? 1 : 0;
  *not_before = has ? unix_seconds(tls->certificate->not_before) : 0;
  *not_after = has ? unix_seconds(tls->certificate->not_after) : 0;
  return ok();
}

int sluice_response_tls_resumed(const sluice_response* response) {
  return usable(response) && response->response.tls && response->response.tls->resumed ? 1 : 0;
}

}  // extern "C"
