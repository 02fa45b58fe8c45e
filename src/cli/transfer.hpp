#pragma once
// Runs the one transfer a `sluice` command asks for: builds the request, waits for
// the response, streams the body to the output in 256 KiB reads (never holding the
// whole body), then prints the -w format.
// Ownership: everything here runs on main's thread; the Client's HTTP thread is
// reached only through the public API.

#include <string_view>

#include "cli/options/cli_options.hpp"

namespace sluice::cli {

/// Runs the transfer for `options` (whose url is set) and returns the exit code
/// (exit_codes.hpp). Errors are printed as one "sluice: ..." line unless silenced.
int run_transfer(const CliOptions& options);

/// Prints "sluice: <message>" as exactly one line on stderr.
void print_error(std::string_view message);

}  // namespace sluice::cli
