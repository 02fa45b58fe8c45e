#pragma once
// Runs a program to its end, with its stderr kept for the verdict, and checks files.
// Plain functions; any thread.

#include <string>
#include <vector>

#include "soak/soak_env.hpp"

namespace sluice::chaos {

struct ProcessResult {
  int exit_code = -1;  ///< the exit status, or 128 + the signal that ended it
  double seconds = 0;  ///< wall time from spawn to exit
  std::string stderr_text;
};

/// argv[0] is the program's path. stdout goes to /dev/null; stderr to `stderr_file`,
/// which is read back into the result.
ProcessResult run_process(const std::vector<std::string>& argv, const std::string& stderr_file);

/// "" when the file holds exactly `expected` (size and SHA-256); otherwise what differs.
std::string file_mismatch(const std::string& path, const soak::ServedFile& expected);

}  // namespace sluice::chaos
