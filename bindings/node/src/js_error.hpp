#pragma once
// The JS value of a sluice failure: an Error whose `errno` is the sluice_code number,
// `code` its name ("connect"), `category` its category ("connect") and message the
// library's. lib/errors.mjs turns it into a SluiceError. JS thread only.

#include <node_api.h>

#include <string_view>

#include "sluice/sluice.h"

namespace sluice_node {

/// `message`: what the library said (sluice_last_error() read during the failing
/// call or callback: it is only valid until the thread's next sluice call).
napi_value sluice_error(napi_env env, sluice_code code, std::string_view message);

/// Throws sluice_error(code, sluice_last_error()) as a JS exception (JsThrown).
[[noreturn]] void throw_sluice_error(napi_env env, sluice_code code);

/// Throws unless `code` is SLUICE_OK.
void check_sluice(napi_env env, sluice_code code);

}  // namespace sluice_node
