#pragma once
// Shell completions for `sluice`, made from the help rows (help_rows.hpp), so that an
// option added there completes at once: its names, whether a value follows, and files
// for the options whose argument is a file, a directory or a path. The build writes
// them with `sluice --completion bash|zsh` (a hidden argument: it is for the build, not
// for users), and the package installs them. Ownership: pure functions; any thread.

#include <string>
#include <string_view>

#include "sluice/error.hpp"

namespace sluice::cli {

/// The completion script for `shell`, "bash" (a file for bash-completion's
/// completions directory) or "zsh" (an autoloaded _sluice function). Another shell is
/// a usage error naming it.
Result<std::string> completion_script(std::string_view shell);

}  // namespace sluice::cli
