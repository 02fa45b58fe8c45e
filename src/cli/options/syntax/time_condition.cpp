#include "cli/options/syntax/time_condition.hpp"

#include <fcntl.h>
#include <sys/stat.h>

#include <cerrno>
#include <cstdio>
#include <cstring>

#include "sluice/http_date.hpp"

namespace sluice::cli {

Result<std::optional<TimeCondition>> read_time_condition(std::string_view argument) {
  TimeCondition condition;
  std::string_view text = argument;
  // "-DATE": a leading dash asks for If-Unmodified-Since (curl's -z -date).
  if (text.starts_with('-')) {
    condition.unmodified = true;
    text.remove_prefix(1);
  }
  if (text.empty()) {
    return Error(ErrorCategory::usage,
                 "-z/--time-cond: give a date ('Sun, 06 Nov 1994 08:49:37 GMT') or a file");
  }
  if (auto when = parse_http_date(text)) {
    condition.when = *when;
    return std::optional<TimeCondition>(condition);
  }
  const std::string path(text);
  struct stat info {};
  if (::stat(path.c_str(), &info) == 0) {
    condition.when = std::chrono::sys_seconds{std::chrono::seconds{info.st_mtim.tv_sec}};
    return std::optional<TimeCondition>(condition);
  }
  std::fputs(("sluice: warning: -z/--time-cond: '" + path +
              "' is neither a date (like 'Sun, 06 Nov 1994 08:49:37 GMT') nor a file (" +
              std::strerror(errno) + "); the request is sent without a time condition\n")
                 .c_str(),
             stderr);
  return std::optional<TimeCondition>();
}

Result<void> set_remote_time(const std::string& path, std::string_view last_modified) {
  const auto when = parse_http_date(last_modified);
  if (!when) return {};
  struct timespec times[2] = {};
  times[0].tv_nsec = UTIME_OMIT;  // the access time stays
  times[1].tv_sec = static_cast<time_t>(when->time_since_epoch().count());
  if (::utimensat(AT_FDCWD, path.c_str(), times, 0) != 0) {
    return Error(ErrorCategory::io, "-R/--remote-time: cannot set the time of '" + path +
                                        "': " + std::strerror(errno));
  }
  return {};
}

}  // namespace sluice::cli
