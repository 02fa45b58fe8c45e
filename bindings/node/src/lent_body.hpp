#pragma once
// Lending a script's bytes to the library as a request body (sluice_request_set_body_lent):
// a 1 MiB Uint8Array is sent from where it is, not copied into the library, and the
// library lets go of it once sent (the release rule) or when the exchange ends.
// JS thread only; the release runs on it too (the client uses host dispatch).

#include <node_api.h>

#include "sluice/sluice.h"

namespace sluice_node {

/// Sets `value` (an ArrayBuffer, a typed array or a DataView over an ArrayBuffer) as
/// `request`'s body, lent. A buffer the script can resize is copied instead. Throws a
/// TypeError for any other value or a detached buffer.
void lend_body(napi_env env, sluice_request* request, napi_value value);

}  // namespace sluice_node
