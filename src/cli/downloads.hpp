#pragma once
// Runs a `sluice` command in downloader mode: every URL (from the command line and
// from -i lists) into a file through sluice::download(), one after another or up to
// --parallel-max at once with -Z, with a progress display and --json-summary lines.
// Ownership: main's thread owns everything here; with -Z each download runs on a
// worker thread of its own that only touches its job and the shared display.

#include "cli/options/cli_options.hpp"
#include "cli/output/progress.hpp"

namespace sluice::cli {

/// Returns the exit code: 0 when every download completed, else the code of the
/// first that failed (exit_codes.hpp). Each failure is printed as one line.
int run_downloads(const CliOptions& options);

/// The progress display's mode for a run: none with -s, else --progress=MODE, else
/// (automatic) a bar when stderr is a terminal and nothing otherwise. Fetch mode
/// with -o FILE shows the same meter.
ProgressMode progress_mode_for(const CliOptions& options);

}  // namespace sluice::cli
