#pragma once
// sluice-chaos's command line. Main thread only.

#include <cstdint>
#include <optional>
#include <string>

#include "sluice/error.hpp"

namespace sluice::chaos {

struct ChaosOptions {
  std::uint64_t downloads = 40;
  std::uint64_t fetches = 40;
  std::uint64_t seed = 1;
  int workers = 3;        ///< download workers, and as many fetch workers beside them
  std::string env_file;   ///< the servers' env file (default $SLUICE_TEST_ENV/env)
  std::string sluice;     ///< the command (default: `sluice` beside this program)
  std::string scratch;    ///< where downloads go (default $TMPDIR/sluice-chaos-PID)
  bool verbose = false;   ///< print every run, not only the wrong ones
  std::string only_kind;  ///< "download" or "fetch": replay the one run only_index
  std::uint64_t only_index = 0;
  /// With --only: the outcome the run must have ("ok", "failed_resumed", ...), for a
  /// regression test that replays a seed whose run once went another way.
  std::string expect;
};

Result<ChaosOptions> parse_chaos_options(int argc, char** argv);
const char* chaos_usage();

}  // namespace sluice::chaos
