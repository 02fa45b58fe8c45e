#pragma once
// Turns parsed command-line options into the library's Request and ClientOptions.
// Everything that can be wrong was rejected while parsing, so building cannot fail.
// Ownership: pure functions; the results are values owned by the caller (main thread).

#include "cli/options/cli_options.hpp"
#include "sluice/client.hpp"
#include "sluice/request.hpp"

namespace sluice::cli {

/// Method, headers (the command's own plus -H, -H replacing), body, version,
/// timeouts, redirects and decoding for one transfer.
Request build_request(const CliOptions& options);

/// TLS trust (--cacert, -k) and the file pool size for one transfer.
ClientOptions build_client_options(const CliOptions& options);

}  // namespace sluice::cli
