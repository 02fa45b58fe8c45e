#pragma once
// The cookie options of the `sluice` command, under curl's names and meanings:
//   -b/--cookie DATA|FILE   "a=1; b=2" (it has a '=') is sent as it is; anything
//                           else is a cookie file to read, which turns the cookie
//                           engine on (a file that does not exist only does that)
//   -c/--cookie-jar FILE    engine on; after every transfer, the jar is written to
//                           FILE in the Netscape format ("-": standard output)
//   -j/--junk-session-cookies  cookies without an expiry are not read from files
// One jar serves every URL of a run (fetch mode and downloader mode alike).
// Ownership: CookieCliOptions is part of CliOptions (main thread); the jar made from
// it is shared with the Client (sluice::CookieJar is thread-safe).

#include <memory>
#include <string>
#include <vector>

#include "sluice/cookies.hpp"

namespace sluice::cli {

struct CookieCliOptions {
  std::string literal;                  ///< the last -b DATA, also in CliOptions::headers
  std::vector<std::string> load_files;  ///< each -b FILE, in order
  std::string jar_file;                 ///< -c FILE
  bool junk_session = false;            ///< -j
  /// -b FILE or -c: the Client gets a jar.
  bool engine_on() const noexcept { return !load_files.empty() || !jar_file.empty(); }
};

/// The jar for a run: null when the engine is off, else with the -b files read
/// (missing ones skipped, as curl does; an unreadable one is a warning on stderr).
std::shared_ptr<CookieJar> open_cookie_jar(const CookieCliOptions& options);

/// Writes the jar to -c's file after the transfers. A failure is reported on
/// stderr as a warning and does not change the exit code (curl's behaviour).
void save_cookie_jar(const CookieCliOptions& options, const std::shared_ptr<CookieJar>& jar);

}  // namespace sluice::cli
