#pragma once
// -o FILE in fetch mode: the downloader's progress meter (progress.hpp) for the one
// body, as curl shows its meter when the body goes to a file. Off with -s, when the
// body goes to stdout, and (unless --progress says otherwise) when stderr is no
// terminal: the same choice as downloader mode.
// Ownership: main's thread; the display's render thread only draws what it is handed.

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "cli/cli_clock.hpp"
#include "cli/options/cli_options.hpp"
#include "cli/output/progress.hpp"
#include "cli/output/stderr_lines.hpp"

namespace sluice::cli {

class FetchMeter {
 public:
  /// Draws nothing until body_started(); `path` is the -o file ("" or "-": stdout).
  FetchMeter(const CliOptions& options, const std::string& path);
  ~FetchMeter() { end(false); }
  FetchMeter(const FetchMeter&) = delete;
  FetchMeter& operator=(const FetchMeter&) = delete;

  /// A body begins (the first, or a retry's): `done` bytes of it are in the file
  /// already, `total` is its whole size when the response says it.
  void body_started(std::uint64_t done, std::optional<std::uint64_t> total);
  /// `done` body bytes are in the file now.
  void wrote(std::uint64_t done);
  /// `text` (ending in a newline) on stderr: above a live bar, never through it.
  void print(std::string_view text);
  /// The final line ("100% ... in 2s", or "failed"); idempotent. After it, print()
  /// writes straight to stderr.
  void end(bool ok);

 private:
  ProgressMode mode_;
  std::string path_;
  std::optional<ProgressDisplay> display_;      // from the first body_started() to end()
  std::optional<StderrAttachment> attachment_;  // while display_ is; ends first
  std::size_t slot_ = 0;
  DownloadProgress progress_;
  CliTimePoint started_{};
};

}  // namespace sluice::cli
