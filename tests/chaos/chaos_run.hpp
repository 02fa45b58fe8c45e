#pragma once
// One chaos run and what it came to: a download with the `sluice` command
// (chaos_download.cpp) or a fetch through the library's Client (chaos_fetch.cpp),
// each through its own ChaosLink built from the run's seed.
// A run is judged by outcomes only: the bytes (SHA-256 against the server's file),
// the exit code or ErrorCode, the resume, and the wall time against its deadline.
// Thread-safety: a run is a function of its arguments; runs go on in parallel on
// worker threads, each writing only its own scratch files.

#include <cstdint>
#include <string>
#include <vector>

#include "soak/soak_env.hpp"

namespace sluice::chaos {

struct ChaosSetup {
  soak::SoakEnv env;
  std::string sluice;   ///< the command's path
  std::string scratch;  ///< a directory for the downloads
  std::uint64_t seed = 1;
};

struct RunRecord {
  std::string kind;  ///< "download" or "fetch"
  std::uint64_t index = 0;
  std::uint64_t seed = 0;  ///< run_seed(setup.seed, index)
  std::string protocol;    ///< h1, h1_tls, h2, h3
  std::string mode;        ///< single, split, held, released
  std::string fault;       ///< the link's fault kind
  /// ok; failed_resumed (a download that failed as it should and resumed to the
  /// exact bytes); error (a fetch that failed as it should); status_503; or wrong.
  std::string outcome;
  std::string detail;  ///< why it is wrong, or the exit code / ErrorCode
  double seconds = 0;
  std::vector<std::string> log;  ///< the link's decisions, for a wrong run's report
  bool wrong() const { return outcome == "wrong"; }
};

RunRecord run_download(const ChaosSetup& setup, std::uint64_t index);
RunRecord run_fetch(const ChaosSetup& setup, std::uint64_t index);

}  // namespace sluice::chaos
