#pragma once
// The addon reaches into V8 (lent_body.cpp holds an ArrayBuffer's BackingStore), and
// V8's C++ ABI changes with each Node.js major. Node checks NODE_MODULE_VERSION only
// for addons that register through its C++ API, not through Node-API, so this one
// checks itself before anything else runs: loaded into another major, it refuses
// with an error that says what to rebuild, where it would otherwise crash later.
// JS thread only.

#include <node_api.h>

namespace sluice_node {

/// Throws (JsThrown, an Error pending) when the running Node.js is not the major
/// whose headers built the addon.
void require_node_built_for(napi_env env);

}  // namespace sluice_node
