#pragma once
// SoakOptions: what one run of sluice-soak does, parsed from its command line.
// A plain value; main thread only.

#include <cstdint>
#include <string>

#include "sluice/error.hpp"

namespace sluice::soak {

struct SoakOptions {
  int seconds = 600;        ///< traffic time; the run ends after the requests in flight
  std::string env_file;     ///< KEY=VALUE lines written by tests/support/servers/start.sh
  std::uint64_t seed = 1;   ///< worker i draws from seed + i: a run's mix is repeatable
  int workers = 8;          ///< threads sending requests
  int sample_seconds = 10;  ///< RSS sample interval
  /// RSS growth allowed (MiB) between the middle and the last third of the run.
  double max_growth_mib = 16.0;
  /// Below this many seconds the run is too short to judge RSS; the figures are
  /// printed but do not fail the run.
  int min_seconds_for_rss_verdict = 120;
  bool help = false;
};

/// Parses argv. The env file defaults to $SLUICE_TEST_ENV/env, as the tests find it.
Result<SoakOptions> parse_soak_options(int argc, char** argv);
/// The --help text.
const char* soak_usage();

}  // namespace sluice::soak
