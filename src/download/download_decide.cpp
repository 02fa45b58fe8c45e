// What the first response of a download means, for each place the file continues
// from: the plan of ranges and the response range `first_range_` reads, a file that
// is complete already, a restart from byte 0 (said in a note), or a failure.
#include "download/download_session.hpp"

#include <algorithm>

namespace sluice {
namespace {

std::optional<std::uint64_t> body_length(const Response& response, bool decoding) {
  if (decoding && response.headers.contains("content-encoding")) return std::nullopt;
  auto value = response.headers.get("content-length");
  if (!value || value->empty() || value->size() > 19) return std::nullopt;
  std::uint64_t length = 0;
  for (char c : *value) {
    if (c < '0' || c > '9') return std::nullopt;
    length = length * 10 + static_cast<std::uint64_t>(c - '0');
  }
  return length;
}

std::optional<ContentRange> content_range_of(const Response& response) {
  auto value = response.headers.get("content-range");
  if (!value) return std::nullopt;
  return parse_content_range(*value);
}

std::string content_range_text(const Response& response) {
  return std::string(response.headers.get("content-range").value_or("(none)"));
}

}  // namespace

DownloadSession::Decision DownloadSession::fail_with(std::string message) {
  return Decision{Verdict::fail,
                  AttemptFailure{Error(ErrorCategory::protocol, "download: " + std::move(message)),
                                 false, std::nullopt}};
}

DownloadSession::Decision DownloadSession::decide_fresh(Response& response, bool asked_range) {
  const std::string validator = resume_validator(response.headers);
  truncate_ = true;
  if (response.status == 416) {
    auto range = content_range_of(response);
    if (range && !range->first && range->total == 0) {  // an empty file has no bytes to range
      total_ = 0;
      plan_ = {RangeSpec{0, 0, 0}};
      validator_ = validator;
      return Decision{Verdict::proceed, std::nullopt};
    }
    return fail_with("the server refused 'bytes=0-' of " +
                     url_without_credentials(options_.request.url) + " (416)");
  }
  if (response.status == 206) {
    auto range = content_range_of(response);
    if (!range || range->first != 0) {
      return fail_with("the server answered 'bytes=0-' with Content-Range " +
                       content_range_text(response));
    }
    if (!range->total) {
      note("the server did not give the file's size: one range");
      proceed_with({RangeSpec{0, std::nullopt, 0}}, std::nullopt, validator, response, 0);
      return Decision{Verdict::proceed, std::nullopt};
    }
    auto plan = plan_ranges(0, *range->total, options_.ranges, options_.min_range_size);
    if (plan.size() < options_.ranges) {
      note(std::to_string(plan.size()) + (plan.size() == 1 ? " range" : " ranges") +
           ": the file is too small for more of at least " +
           std::to_string(options_.min_range_size) + " bytes");
    }
    proceed_with(std::move(plan), range->total, validator, response, 0);
    return Decision{Verdict::proceed, std::nullopt};
  }
  if (asked_range) {
    note("the server does not answer ranges: one range");
  } else if (options_.ranges > 1 && options_.request.decode.enabled) {
    note("content decoding is on: one range");
  }
  const auto total = body_length(response, options_.request.decode.enabled);
  proceed_with({RangeSpec{0, total, 0}}, total, validator, response, 0);
  return Decision{Verdict::proceed, std::nullopt};
}

std::optional<std::uint64_t> DownloadSession::end_for(std::optional<std::uint64_t> total) const {
  if (!options_.range || !options_.range->last) return total;
  const std::uint64_t end = *options_.range->last + 1;
  return total ? std::min(*total, end) : end;
}

DownloadSession::Decision DownloadSession::decide_range(Response& response) {
  truncate_ = true;
  const std::string asked = "bytes=" + std::to_string(origin_) + "-" + range_last();
  auto range = content_range_of(response);
  if (response.status != 206) {
    return fail_with("the server answered '" + asked + "' with " + std::to_string(response.status) +
                     ", not 206 with the range");
  }
  if (!range || range->first != origin_) {
    return fail_with("the server answered '" + asked + "' with Content-Range " +
                     content_range_text(response));
  }
  const auto end = end_for(range->total);
  std::vector<RangeSpec> plan{RangeSpec{origin_, end, 0}};
  if (end) plan = plan_ranges(origin_, *end, options_.ranges, options_.min_range_size);
  proceed_with(std::move(plan), end, resume_validator(response.headers), response, 0);
  return Decision{Verdict::proceed, std::nullopt};
}

DownloadSession::Decision DownloadSession::decide_from_size(std::uint64_t size,
                                                            Response& response) {
  if (response.status == 200 && (origin_ > 0 || options_.resume_from.value_or(0) > 0)) {
    // Starting again from byte 0 would throw away the bytes the user asked to keep
    // (-C OFFSET) or write the whole resource into a file of one range (-r).
    return fail_with("the server ignored the range 'bytes=" + std::to_string(size) +
                     "-' (200): nothing written, the file is as it was");
  }
  if (response.status == 200) {
    note("the server ignored the range: restarted from byte 0");
    return decide_fresh(response, options_.ranges > 1);
  }
  auto range = content_range_of(response);
  if (response.status == 416) {
    // Nothing after the file's last byte: complete when the server's size is the
    // file's, or unsaid (a 416 without Content-Range; curl takes it as complete too).
    if (!range || (!range->first && end_for(range->total) == size)) {
      total_ = size;
      result_.resumed_from = size;
      note(range ? "the file was complete already"
                 : "the file was complete already (the server's 416 did not say its size)");
      return Decision{Verdict::complete, std::nullopt};
    }
    if (range && !range->first) {
      return fail_with("'" + path_ + "' has " + std::to_string(size) +
                       " bytes but the file on the server has " + std::to_string(*range->total) +
                       "; not resuming (remove it, or download without resume)");
    }
    return fail_with("the server refused the range 'bytes=" + std::to_string(size) + "-' (416)");
  }
  if (!range || range->first != size) {
    return fail_with("the server answered 'bytes=" + std::to_string(size) +
                     "-' with Content-Range " + content_range_text(response));
  }
  const auto end = end_for(range->total);
  std::vector<RangeSpec> plan{RangeSpec{size, end, 0}};
  if (end) plan = plan_ranges(size, *end, options_.ranges, options_.min_range_size);
  result_.resumed_from = size;
  note("resumed at byte " + std::to_string(size));
  proceed_with(std::move(plan), end, resume_validator(response.headers), response, 0);
  return Decision{Verdict::proceed, std::nullopt};
}

DownloadSession::Decision DownloadSession::decide_from_control(const ControlFile& control,
                                                               Response& response) {
  std::size_t index = 0;
  while (control.ranges[index].complete()) ++index;
  const RangeSpec& asked = control.ranges[index];
  if (response.status == 416) {
    return restart("the server no longer has bytes " + std::to_string(asked.next()) +
                   "- of the file (it changed): restarted from byte 0");
  }
  if (response.status == 200) {
    const std::string now = resume_validator(response.headers);
    if (!control.validator.empty() && now != control.validator) {
      return restart("the file changed on the server (validator " + control.validator + ", now " +
                     (now.empty() ? std::string("none") : now) + "): restarted from byte 0");
    }
    return restart("the server ignored the range: restarted from byte 0");
  }
  auto range = content_range_of(response);
  if (range && control.size && end_for(range->total) != control.size) {
    return restart("the file on the server changed size (" + std::to_string(*control.size) +
                   " bytes, now " + (range->total ? std::to_string(*range->total) : "unknown") +
                   "): restarted from byte 0");
  }
  if (!range || range->first != asked.next() || (asked.end && range->last != *asked.end - 1)) {
    return fail_with("the server answered '" + range_header_value(asked) + "' with Content-Range " +
                     content_range_text(response));
  }
  std::uint64_t kept = control.ranges.front().start;
  for (const auto& spec : control.ranges) kept += spec.done;
  result_.resumed_from = kept;
  note("resumed from the control file: " + std::to_string(kept) + " bytes were there");
  // A larger --split than the interrupted run had splits what is left.
  std::vector<RangeSpec> plan = control.ranges;
  if (!options_.request.decode.enabled) {
    const std::size_t before = plan.size();
    plan = split_remaining(std::move(plan), options_.ranges, options_.min_range_size);
    if (plan.size() > before) {
      const auto incomplete = std::count_if(plan.begin(), plan.end(),
                                            [](const RangeSpec& spec) { return !spec.complete(); });
      note("split the rest into " + std::to_string(incomplete) +
           " ranges (--split is larger "
           "than the interrupted run's)");
    }
  }
  proceed_with(std::move(plan), control.size, control.validator, response, index);
  return Decision{Verdict::proceed, std::nullopt};
}

DownloadSession::Verdict DownloadSession::decide_complete_control(const ControlFile& control) {
  plan_ = control.ranges;
  total_ = control.size;
  validator_ = control.validator;
  result_.resumed_from = control.size.value_or(0);
  note("every range was complete already");
  return Verdict::complete;
}

}  // namespace sluice
