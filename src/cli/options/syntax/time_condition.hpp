#pragma once
// -z/--time-cond and -R/--remote-time: a fetch conditional on the time the copy the
// caller already has was made, as curl's options are. -z DATE sends
// If-Modified-Since, -z -DATE If-Unmodified-Since; an argument that is not a date
// names a file whose modification time is used, and -R gives the -o file the
// response's Last-Modified so the next -z FILE asks the right question.
// Ownership: pure functions and values on main's thread.

#include <chrono>
#include <optional>
#include <string>
#include <string_view>

#include "sluice/error.hpp"

namespace sluice::cli {

struct TimeCondition {
  std::chrono::sys_seconds when;
  bool unmodified = false;  ///< -z -DATE: If-Unmodified-Since instead of If-Modified-Since

  /// The request header the condition is sent as.
  std::string_view header_name() const {
    return unmodified ? "If-Unmodified-Since" : "If-Modified-Since";
  }
};

/// Reads -z's argument: an HTTP-date (sluice::parse_http_date), or failing that a
/// file whose mtime is the date. nullopt, after a warning on stderr, when it is
/// neither (curl's behaviour: the transfer goes ahead unconditionally). Usage error
/// for an empty argument.
Result<std::optional<TimeCondition>> read_time_condition(std::string_view argument);

/// -R: sets `path`'s modification time to `last_modified` (a Last-Modified value).
/// A value that is not a date leaves the file alone; a failure to set it is an
/// io error naming the file.
Result<void> set_remote_time(const std::string& path, std::string_view last_modified);

}  // namespace sluice::cli
