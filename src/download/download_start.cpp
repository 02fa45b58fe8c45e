// The first request of a download and what its response means: where the file
// continues (fresh, from its size, from its control file), its size, its validator
// and the plan of ranges, or that it is complete already, or that it must restart.
#include <algorithm>
#include <thread>

#include "core/time_source.hpp"
#include "download/download_session.hpp"
#include "download/file/file_names.hpp"

namespace sluice {
namespace {

std::size_t first_incomplete(const ControlFile& control) {
  for (std::size_t i = 0; i < control.ranges.size(); ++i) {
    if (!control.ranges[i].complete()) return i;
  }
  return control.ranges.size();
}

std::uint64_t furthest_done(const ControlFile& control) {
  std::uint64_t furthest = 0;
  for (const auto& range : control.ranges) furthest = std::max(furthest, range.next());
  return furthest;
}

}  // namespace

Result<DownloadSession::Origin> DownloadSession::find_origin() {
  if (!options_.resume && options_.resume_from.value_or(0) > 0) return origin_at_offset();
  if (!options_.resume) return Origin{};
  if (stream_) {
    note("'" + path_ + "' is not a regular file: nothing to resume, downloading it whole");
    return Origin{};
  }
  auto control = load_control(control_path_);
  if (!control) return std::move(control).error();
  if (*control) {
    // Compared without credentials: a file an older sluice wrote may have kept them.
    const std::string url = url_without_credentials((*control)->url);
    if (url != url_without_credentials(options_.request.url)) {
      return Error(ErrorCategory::usage, "download: control file '" + control_path_ +
                                             "' belongs to " + url +
                                             "; remove it or download to another path");
    }
    if ((*control)->origin != origin_) {
      return Error(ErrorCategory::usage,
                   "download: control file '" + control_path_ + "' is of a download from byte " +
                       std::to_string((*control)->origin) + ", not " + std::to_string(origin_) +
                       "; ask for the same range, or remove it");
    }
    auto size = existing_file_size(path_);
    if (!size) return std::move(size).error();
    // The file holds the resource from origin_ on; the control file counts in the
    // resource's offsets.
    if (!*size || **size + origin_ < furthest_done(**control)) {
      // The bytes the control file counts are gone (the file was removed or cut).
      note("'" + path_ + "' lacks bytes its control file counts: restarted from byte 0");
      return Origin{};
    }
    return Origin{Origin::Kind::from_control, 0, std::move(**control)};
  }
  auto size = existing_file_size(path_);
  if (!size) return std::move(size).error();
  // A range download's file holds the resource from origin_ on.
  if (*size && **size > 0) return Origin{Origin::Kind::from_size, **size + origin_, {}};
  return Origin{};
}

// -C OFFSET: the file's first bytes are the resource's; a control file of an
// earlier run no longer describes it.
Result<DownloadSession::Origin> DownloadSession::origin_at_offset() {
  const std::uint64_t offset = *options_.resume_from;
  if (stream_) {
    return Error(ErrorCategory::usage, "download: '" + path_ +
                                           "' is not a regular file: it cannot continue at byte " +
                                           std::to_string(offset));
  }
  auto size = existing_file_size(path_);
  if (!size) return std::move(size).error();
  if (size->value_or(0) < offset) {
    return Error(ErrorCategory::usage,
                 "download: '" + path_ + "' has " + std::to_string(size->value_or(0)) +
                     " bytes, fewer than the offset " + std::to_string(offset) + " to continue at");
  }
  return Origin{Origin::Kind::from_size, offset, {}};
}

// A range download whose file already reaches the range's last byte: there is
// nothing to ask for ("bytes=500-499" is no range).
std::optional<Result<DownloadSession::Verdict>> DownloadSession::range_on_disk(
    const Origin& origin) {
  const auto end = end_for(std::nullopt);
  if (origin.kind != Origin::Kind::from_size || !options_.range || !end || origin.size < *end)
    return std::nullopt;
  if (origin.size > *end) {
    return Result<Verdict>(
        Error(ErrorCategory::usage, "download: '" + path_ + "' has more bytes than the range " +
                                        std::to_string(origin_) + "-" + range_last() +
                                        "; not resuming (remove it, or download without resume)"));
  }
  total_ = *end;
  result_.resumed_from = *end;
  note("the file was complete already");
  return Result<Verdict>(Verdict::complete);
}

std::string DownloadSession::range_last() const {
  if (!options_.range || !options_.range->last) return {};
  return std::to_string(*options_.range->last);
}

bool DownloadSession::is_complete(const Origin& origin) {
  return origin.kind == Origin::Kind::from_control &&
         first_incomplete(origin.control) == origin.control.ranges.size();
}

Request DownloadSession::first_request(const Origin& origin) const {
  Request request = options_.request;
  switch (origin.kind) {
    case Origin::Kind::fresh:
      // Asking for "0-" learns whether ranges work; one range needs no answer to that.
      if (options_.range) {
        request.headers.set("Range", "bytes=" + std::to_string(origin_) + "-" + range_last());
      } else if (options_.ranges > 1 && !request.decode.enabled) {
        request.headers.set("Range", "bytes=0-");
      }
      break;
    case Origin::Kind::from_size:
      request.headers.set("Range", "bytes=" + std::to_string(origin.size) + "-" + range_last());
      break;
    case Origin::Kind::from_control: {
      const auto& control = origin.control;
      request.headers.set("Range", range_header_value(control.ranges[first_incomplete(control)]));
      if (!control.validator.empty()) request.headers.set("If-Range", control.validator);
      break;
    }
  }
  return request;
}

// The first request with its retries. A restart (the server ignored the range, the
// file changed) starts over once as a fresh download, without counting as a retry.
Result<DownloadSession::Verdict> DownloadSession::start() {
  Origin origin;
  if (!path_.empty()) {
    auto found = find_origin();
    if (!found) return std::move(found).error();
    origin = std::move(*found);
    if (is_complete(origin)) return decide_complete_control(origin.control);
    if (auto done = range_on_disk(origin)) return *done;
  }
  for (int attempt = 0;;) {
    if (options_.cancel && options_.cancel->load()) {
      return Error(ErrorCategory::cancelled, "download: cancelled");
    }
    PendingResponse pending = client_.send(first_request(origin));
    auto response = wait_first(pending);
    Decision decision;
    if (!response) {
      decision.failure = failure_from_error(std::move(response).error(), options_.request.method);
    } else {
      result_.first_response = response->head();
      if (path_.empty()) {
        const Url url = Url::parse(options_.request.url).value();
        std::string name = file_name_for(url, response->headers, true);
        std::string directory = options_.target.directory;
        if (!directory.empty() && directory.back() != '/') directory += '/';
        if (auto placed = set_path(directory + name); !placed) return std::move(placed).error();
        if (auto kept = refuse_overwrite_of_server_name(response->headers); !kept) {
          return std::move(kept).error();
        }
        auto found = find_origin();
        if (!found) return std::move(found).error();
        if (found->kind != Origin::Kind::fresh) {
          origin = std::move(*found);  // a partial file of that name: ask again for the rest
          if (is_complete(origin)) return decide_complete_control(origin.control);
          continue;
        }
      }
      decision = decide(origin, *response);
    }
    switch (decision.verdict) {
      case Verdict::proceed:
      case Verdict::complete:
      case Verdict::not_modified: return decision.verdict;
      case Verdict::restart: origin = Origin{}; continue;
      case Verdict::fail: break;
    }
    const std::optional<std::chrono::milliseconds> wait = next_retry_wait(
        *decision.failure, attempt, options_.retry,
        std::chrono::duration_cast<std::chrono::milliseconds>(steady_now() - began_));
    if (!wait) return std::move(decision.failure->error);
    if (!sleep_with_ticks(*wait)) {
      return Error(ErrorCategory::cancelled, "download: cancelled");
    }
    ++attempt;
    ++result_.retries;
  }
}

Result<Response> DownloadSession::wait_first(PendingResponse& pending) {
  for (;;) {
    if (options_.cancel && options_.cancel->load()) {
      return Error(ErrorCategory::cancelled, "download: cancelled");
    }
    auto decided = pending.wait_for(kDownloadSlice);
    if (decided) return std::move(*decided);
    monitor_.tick();
  }
}

bool DownloadSession::sleep_with_ticks(std::chrono::milliseconds wait) {
  const auto deadline = steady_now() + wait;
  for (;;) {
    if (options_.cancel && options_.cancel->load()) return false;
    const auto now = steady_now();
    if (now >= deadline) return true;
    std::this_thread::sleep_for(
        std::min<std::chrono::steady_clock::duration>(deadline - now, kDownloadSlice));
    monitor_.tick();
  }
}

DownloadSession::Decision DownloadSession::decide(const Origin& origin, Response& response) {
  const int status = response.status;
  const Headers& sent = options_.request.headers;
  if (status == 304 && (sent.get("if-modified-since") || sent.get("if-none-match"))) {
    return Decision{Verdict::not_modified, std::nullopt};
  }
  if (status == 412 && sent.get("if-unmodified-since"))
    return Decision{Verdict::not_modified, std::nullopt};
  if (status != 200 && status != 206 && status != 416) {
    return Decision{Verdict::fail,
                    failure_from_status(status, response.headers, options_.request.url)};
  }
  switch (origin.kind) {
    case Origin::Kind::fresh:
      if (options_.range) return decide_range(response);
      return decide_fresh(response, options_.ranges > 1 && !options_.request.decode.enabled);
    case Origin::Kind::from_size: return decide_from_size(origin.size, response);
    case Origin::Kind::from_control: return decide_from_control(origin.control, response);
  }
  return {};
}

void DownloadSession::proceed_with(std::vector<RangeSpec> plan, std::optional<std::uint64_t> total,
                                   std::string validator, Response& response, std::size_t range) {
  plan_ = std::move(plan);
  total_ = total;
  validator_ = std::move(validator);
  first_range_ = range;
  first_.emplace(std::move(response));
}

DownloadSession::Decision DownloadSession::restart(std::string why) {
  note(std::move(why));
  return Decision{Verdict::restart, std::nullopt};
}

}  // namespace sluice
