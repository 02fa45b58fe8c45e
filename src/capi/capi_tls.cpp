// The C API: the TLS versions a client offers (ClientOptions::tls.min_version and
// tls.max_version, set together); the one-value TLS options come from
// client_option_table.hpp.
#include <string>

#include "capi/capi_call.hpp"
#include "capi/capi_handles.hpp"

using namespace sluice;
using namespace sluice::capi;

namespace {

bool tls_version_of(int value, TlsVersion& out) {
  if (value == SLUICE_TLS_1_2)
    out = TlsVersion::v1_2;
  else if (value == SLUICE_TLS_1_3)
    out = TlsVersion::v1_3;
  else
    return false;
  return true;
}

}  // namespace

extern "C" {

sluice_code sluice_client_options_set_tls_versions(sluice_client_options* options, int min,
                                                   int max) {
  TlsVersion low{}, high{};
  if (!tls_version_of(min, low) || !tls_version_of(max, high) || min > max) {
    return invalid("sluice_client_options_set_tls_versions",
                   "min and max must be SLUICE_TLS_1_2 or SLUICE_TLS_1_3, min <= max");
  }
  return with_options("sluice_client_options_set_tls_versions", options, [&](ClientOptions& o) {
    o.tls.min_version = low;
    o.tls.max_version = high;
    return ok();
  });
}

}  // extern "C"
