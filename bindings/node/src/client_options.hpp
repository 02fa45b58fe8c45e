#pragma once
// Client options from JS: a plain object whose keys are the names of the C API's
// option table (sluice_client_option_by_name: "ca_file", "proxy", "insecure",
// "pool_idle_timeout" ...), each set with the setter its kind names, plus the few
// options that take more than one value (tls_min_version / tls_max_version,
// ip_version). lib/client.mjs turns camelCase keys into these. JS thread only.

#include <node_api.h>

#include <memory>

#include "sluice/sluice.h"

namespace sluice_node {

struct OptionsFree {
  void operator()(sluice_client_options* options) const noexcept {
    sluice_client_options_free(options);
  }
};
using OptionsPtr = std::unique_ptr<sluice_client_options, OptionsFree>;

/// Client options with host dispatch on. A wrong key or value type throws a
/// TypeError; a value the library refuses throws its error.
OptionsPtr client_options_from(napi_env env, napi_value object);

}  // namespace sluice_node
