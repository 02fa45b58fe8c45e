#pragma once
// The list of downloads a command asks for: each URL with where its file goes, and
// the library options every download shares. Built before anything runs, so a bad
// URL list or an impossible combination fails with exit 2 and nothing written.
// Ownership: plain values owned by main's thread.

#include <string>
#include <vector>

#include "cli/options/cli_options.hpp"
#include "sluice/download.hpp"
#include "sluice/error.hpp"

namespace sluice::cli {

struct DownloadJob {
  std::string url;
  DownloadOptions options;  ///< request, target, resume, ranges, checksum, rate, retries
};

/// The URLs of the command line and of its -i lists, in order ("-" reads stdin;
/// blank lines and lines starting with '#' are skipped; a list's URLs are globbed
/// unless -g). Errors: usage when there is none or a list's glob is bad, io when a
/// list cannot be read.
Result<std::vector<std::string>> collect_urls(const CliOptions& options);

/// One job per URL. Errors (usage): a request body or a method other than GET, -o
/// naming one file for several URLs (several -o, or a glob's, name each:
/// CliOptions::output_paths),
/// --checksum with several URLs.
Result<std::vector<DownloadJob>> plan_downloads(const CliOptions& options,
                                                const std::vector<std::string>& urls);

}  // namespace sluice::cli
