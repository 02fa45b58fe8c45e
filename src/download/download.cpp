// sluice::download(): the entry point, the checks on what the caller asked for,
// and the last step, verifying the file before presenting it (removing its control
// file). Starting and running live in download_start.cpp and download_run.cpp.
#include "sluice/download.hpp"

#include <algorithm>
#include <cctype>

#include "core/time_source.hpp"
#include "download/download_session.hpp"
#include "download/file/download_file.hpp"
#include "download/file/download_sha256.hpp"
#include "download/file/file_names.hpp"

namespace sluice {
namespace {

constexpr unsigned kMaxRanges = 16;

Error usage(std::string message) { return Error(ErrorCategory::usage, "download: " + message); }

std::string join_path(const std::string& directory, const std::string& name) {
  if (directory.empty()) return name;
  if (directory.back() == '/') return directory + name;
  return directory + "/" + name;
}

}  // namespace

Result<DownloadResult> download(Client& client, DownloadOptions options) {
  DownloadSession session(client, std::move(options));
  return session.run();
}

DownloadSession::DownloadSession(Client& client, DownloadOptions options)
    : client_(client), options_(std::move(options)), monitor_(options_) {}

Result<DownloadResult> DownloadSession::run() {
  began_ = steady_now();
  auto outcome = run_steps();
  monitor_.finish(outcome ? std::optional<std::uint64_t>(result_.size) : std::nullopt);
  if (!outcome) return outcome;
  result_.seconds = std::chrono::duration<double>(steady_now() - began_).count();
  return std::move(result_);
}

Result<void> DownloadSession::validate() {
  const Request& request = options_.request;
  if (request.method != "GET")
    return usage("the request method must be GET, not '" + request.method + "'");
  if (!std::holds_alternative<std::monostate>(request.body))
    return usage("the request must have no body");
  if (options_.ranges < 1 || options_.ranges > kMaxRanges) {
    return usage("ranges must be 1 to 16, not " + std::to_string(options_.ranges));
  }
  for (const char* name : {"range", "if-range"}) {
    if (request.headers.contains(name)) {
      return usage(std::string("the request must not set ") + name + " (the download sets it)");
    }
  }
  if (options_.sha256) {
    if (!is_sha256_hex(*options_.sha256)) {
      return usage("the SHA-256 checksum must be 64 hex digits, not '" + *options_.sha256 + "'");
    }
    for (char& c : *options_.sha256)
      c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  }
  if (options_.resume && request.decode.enabled) {
    return usage(
        "resume and content decoding do not go together (a range counts bytes of the "
        "encoded body); turn one off");
  }
  if (auto url = Url::parse(request.url); !url) return std::move(url).error();
  if (options_.range) {
    if (options_.range->last && *options_.range->last < options_.range->first)
      return usage("the range's last byte comes before its first");
    if (options_.sha256) return usage("a range download has no checksum to check");
    if (request.decode.enabled)
      return usage("a range download and content decoding do not go together");
    if (options_.resume_from) return usage("a range download and resume_from do not go together");
    origin_ = options_.range->first;
  }
  if (options_.mirrors.size() >= kMaxRanges) {
    return usage("at most " + std::to_string(kMaxRanges - 1) + " mirrors, not " +
                 std::to_string(options_.mirrors.size()));
  }
  for (const std::string& mirror : options_.mirrors) {
    auto url = Url::parse(mirror);
    if (!url) return usage("mirror '" + mirror + "': " + url.error().message());
  }
  // Every source gets a range of its own.
  options_.ranges =
      std::max<unsigned>(options_.ranges, static_cast<unsigned>(options_.mirrors.size() + 1));
  return {};
}

Result<void> DownloadSession::set_path(std::string path) {
  if (options_.target.keep_existing && !options_.resume && !options_.resume_from) {
    auto free = first_free_name(path);
    if (!free) return std::move(free).error();
    path = std::move(*free);
  }
  path_ = std::move(path);
  stream_ = is_stream_output(path_);
  // A stream keeps nothing to resume from: no control file beside /dev/null.
  control_path_ = stream_ ? std::string() : control_file_path(path_);
  result_.path = path_;
  monitor_.set_path(path_);
  if (stream_ && options_.ranges > 1) {
    note("'" + path_ + "' is not a regular file: one range, written in order");
    options_.ranges = 1;
    options_.mirrors.clear();
  }
  if (options_.target.create_directories) return create_parent_directories(path_);
  return {};
}

Result<void> DownloadSession::refuse_overwrite_of_server_name(const Headers& headers) const {
  const DownloadTarget& target = options_.target;
  if (!target.name_from_content_disposition || target.keep_existing ||
      target.overwrite_server_named_file || options_.resume || options_.resume_from || stream_) {
    return {};
  }
  // A name the URL gave (no usable Content-Disposition) is the user's choice, as with -O.
  const auto disposition = headers.get("content-disposition");
  if (!disposition || !content_disposition_file_name(*disposition)) return {};
  auto size = existing_file_size(path_);
  if (!size) return std::move(size).error();
  if (!*size) return {};
  return Error(ErrorCategory::io, "download: '" + path_ +
                                      "' exists and the server chose its name "
                                      "(Content-Disposition): not overwritten (--clobber "
                                      "overwrites it, --no-clobber writes NAME.1 ...)");
}

Result<DownloadResult> DownloadSession::run_steps() {
  if (auto valid = validate(); !valid) return std::move(valid).error();
  const DownloadTarget& target = options_.target;
  Result<void> placed;
  if (!target.path.empty()) {
    placed = set_path(target.path);
  } else if (!target.name_from_content_disposition) {
    const Url url = Url::parse(options_.request.url).value();
    placed = set_path(join_path(target.directory, file_name_for(url, Headers{}, false)));
  }
  if (!placed) return std::move(placed).error();
  auto verdict = start();
  if (!verdict) return std::move(verdict).error();
  result_.resumed_from -= std::min(result_.resumed_from, origin_);  // the file's bytes
  if (*verdict == Verdict::not_modified) {
    note("not modified (HTTP " + std::to_string(result_.first_response.status) + "): '" + path_ +
         "' was left as it was");
    return result_;
  }
  if (*verdict == Verdict::proceed) {
    monitor_.set_origin(origin_);
    if (auto prepared = prepare_file(); !prepared) return std::move(prepared).error();
    if (auto ran = run_ranges(); !ran) return std::move(ran).error();
  }
  const std::uint64_t size = total_ ? *total_ : monitor_.bytes_done();
  monitor_.set_origin(origin_);
  monitor_.set_total(size);
  if (auto presented = verify_and_present(size); !presented) return std::move(presented).error();
  return result_;
}

// The control file goes first: from the moment the file may be incomplete, a
// control file says so.
Result<void> DownloadSession::prepare_file() {
  if (stream_) {
    auto stream = OutputFile::open_stream(path_);
    if (!stream) return std::move(stream).error();
    file_.emplace(std::move(*stream));
    return {};
  }
  ControlFile control{url_without_credentials(options_.request.url), total_, validator_, plan_,
                      origin_};
  if (auto saved = save_control(control_path_, control); !saved) return saved;
  auto file = OutputFile::open(path_);
  if (!file) return std::move(file).error();
  file_.emplace(std::move(*file));
  file_->set_origin(origin_);
  if (truncate_) {
    if (auto cut = file_->resize(0); !cut) return cut;
  }
  if (total_) return file_->resize(*total_);  // pre-sized: ranges write at their offsets
  return {};
}

Result<void> DownloadSession::verify_and_present(std::uint64_t size) {
  if (!file_) {
    auto file = stream_ ? OutputFile::open_stream(path_) : OutputFile::open(path_);
    if (!file) return std::move(file).error();
    file_.emplace(std::move(*file));
    file_->set_origin(origin_);
  }
  if (!total_) {
    // A body of unknown length ended where the writes did; bytes past it (written
    // by an earlier run that was not recorded) are not part of the file.
    if (auto cut = file_->resize(size); !cut) return cut;
  }
  // A stream's size is what was written to it.
  auto actual = stream_ ? Result<std::uint64_t>(monitor_.bytes_done()) : file_->size();
  if (!actual) return std::move(actual).error();
  if (*actual != size) {
    return Error(ErrorCategory::io, "download: '" + path_ + "' has " + std::to_string(*actual) +
                                        " bytes, expected " + std::to_string(size) +
                                        "; it stays incomplete");
  }
  if (options_.sha256) {
    if (auto matched = check_sha256(*file_, size); !matched) return matched;
  }
  if (auto removed = remove_control(control_path_); !removed) return removed;
  result_.size = size - std::min(size, origin_);
  return {};
}

Result<void> DownloadSession::check_sha256(const OutputFile& file, std::uint64_t size) {
  std::string digest;
  if (running_digest_ && running_hashed_ == size) {
    digest = *running_digest_;
  } else {
    auto hashed = sha256_of_file(file, size);
    if (!hashed) return std::move(hashed).error();
    digest = std::move(*hashed);
  }
  if (digest == *options_.sha256) return {};
  if (stream_) {
    return Error(ErrorCategory::protocol, "checksum: SHA-256 of what went to " + path_ + " is " +
                                              digest + ", expected " + *options_.sha256);
  }
  const std::string bad = path_ + ".sluice-bad";
  if (auto moved = rename_file(path_, bad); !moved) return moved;
  if (auto removed = remove_control(control_path_); !removed) return removed;
  return Error(ErrorCategory::protocol, "checksum: SHA-256 of " + path_ + " is " + digest +
                                            ", expected " + *options_.sha256 +
                                            "; the bytes are kept in " + bad);
}

}  // namespace sluice
