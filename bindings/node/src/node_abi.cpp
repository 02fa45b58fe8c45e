#include "node_abi.hpp"

#include <node_version.h>

#include <string>

#include "napi_util.hpp"

// The major the addon was built for: the headers' own, unless the build says
// otherwise (node_addon.cmake builds a copy that claims another, for the test that
// loads it and expects the refusal).
#ifndef SLUICE_NODE_BUILT_FOR_MAJOR
#define SLUICE_NODE_BUILT_FOR_MAJOR NODE_MAJOR_VERSION
#endif

namespace sluice_node {

void require_node_built_for(napi_env env) {
  const napi_node_version* running = nullptr;
  check(env, napi_get_node_version(env, &running));
  if (running->major == SLUICE_NODE_BUILT_FOR_MAJOR) return;
  throw_error(env, "sluice: sluice_node.node was built with the headers of Node.js " +
                       std::to_string(SLUICE_NODE_BUILT_FOR_MAJOR) + " and this is Node.js " +
                       std::to_string(running->major) + "." + std::to_string(running->minor) + "." +
                       std::to_string(running->patch) +
                       " (its V8 ABI differs): rebuild the addon with this Node's headers "
                       "(cmake -DSLUICE_NODE_INCLUDE_DIR=<node>/include/node, target "
                       "sluice_node)");
}

}  // namespace sluice_node
