#include "cli/transfer.hpp"

#include <algorithm>
#include <charconv>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <span>
#include <string>
#include <thread>

#include "cli/cli_clock.hpp"
#include "cli/etag_files.hpp"
#include "cli/exit_codes.hpp"
#include "cli/fetch_resume.hpp"
#include "cli/options/cookie_options.hpp"
#include "cli/options/syntax/time_condition.hpp"
#include "cli/output/fetch_meter.hpp"
#include "cli/output/head_output.hpp"
#include "cli/output/output_sink.hpp"
#include "cli/output/stderr_lines.hpp"
#include "cli/output/verbose.hpp"
#include "cli/output/verbose_tls.hpp"
#include "cli/output/write_out.hpp"
#include "cli/request_builder.hpp"
#include "cli/stdin_upload.hpp"
#include "sluice/client.hpp"
#include "sluice/retry.hpp"
#include "sluice/url.hpp"
#include "tools/content_range.hpp"
#include "tools/rate_limiter.hpp"

namespace sluice::cli {
namespace {

// -C appends to the output (curl's way), --no-clobber keeps an existing one.
OpenMode output_mode(const CliOptions& options) {
  if (options.continue_at || options.download.resume) return OpenMode::append;
  return options.no_clobber ? OpenMode::keep_existing : OpenMode::replace;
}

// -v prints what the Client holds this often during a long body, and at its end.
constexpr std::chrono::seconds kStatsEvery{5};
// The most one read borrows: what one staged block can hold anyway.
constexpr std::size_t kLargestRead = 256 * 1024;

// Messages can carry server-supplied text; the one-line promise must hold anyway, and
// a NUL (an -H @file's) would end the line early where fputs writes it.
std::string one_line(std::string_view message) {
  std::string line(message);
  for (char& c : line) {
    if (c == '\n' || c == '\r' || c == '\0') c = ' ';
  }
  return line;
}

// How one attempt ended: kExitOk, or the exit code and message to report when no
// retry follows, and what should_retry() needs to decide whether one does.
struct AttemptOutcome {
  int exit_code = kExitOk;
  std::string message;
  std::optional<AttemptFailure> failure;
};

AttemptOutcome attempt_failed(int exit_code, std::string message, AttemptFailure failure) {
  return {exit_code, std::move(message), std::move(failure)};
}

// One transfer from start to exit code: one attempt, or with --retry as many as the
// policy allows, each continuing after the body bytes already written. Owned by
// run_transfer's frame, main thread.
class Transfer {
 public:
  explicit Transfer(const CliOptions& options)
      : options_(options), sink_(options.output_path, output_mode(options)) {}

  int run() {
    report_.url = options_.urls.front();
    report_.url_effective = options_.urls.front();
    if (!options_.writes_to_stdout()) report_.filename_effective = options_.output_path;
    start_ = cli_now();
    const int exit_code = finish(execute());
    // After the body (curl writes the jar at cleanup, whatever the outcome).
    save_cookie_jar(options_.cookies, cookie_jar_);
    return exit_code;
  }

 private:
  int execute() {
    Result<Url> url = Url::parse(options_.urls.front());
    if (!url) return fail(kExitBadUrl, url.error().message());
    if (int chosen = choose_bytes(); chosen != kExitOk) return chosen;
    ClientOptions client_options = build_client_options(options_);
    client_options.cookie_jar = cookie_jar_;
    // The client outlives every response below: destroying it first would cancel the body.
    Result<Client> client = Client::create(client_options);
    if (!client) return fail_with(client.error());
    // One transfer: --limit-rate-total is its rate too, where it is the lower.
    std::uint64_t rate = options_.limit_rate;
    if (options_.limit_rate_total > 0 && (rate == 0 || options_.limit_rate_total < rate)) {
      rate = options_.limit_rate_total;
    }
    if (rate > 0) limiter_.emplace(rate);
    client_ = &*client;
    for (int attempt = 0;; ++attempt) {
      AttemptOutcome outcome = attempt_once(*client, *url, attempt);
      // stdin is read once: what went to a failed attempt cannot be sent again.
      const bool resendable = options_.upload_file != "-";
      const std::optional<std::chrono::milliseconds> wait =
          outcome.failure
              ? next_retry_wait(*outcome.failure, attempt, options_.retry, elapsed_since_start())
              : std::nullopt;
      if (!resendable || !wait) {
        meter_.end(outcome.exit_code == kExitOk);  // its last line before any message
        if (options_.verbose) stderr_lines().write(describe_client_stats(client->stats()));
        client_ = nullptr;
        if (outcome.exit_code == kExitOk) return close_output();
        remove_output_on_error();
        return fail(outcome.exit_code, std::move(outcome.message));
      }
      wait_before_retry(outcome, attempt, *wait);
    }
  }

  // -C and -r: which bytes of the resource the output gets (see FetchResume).
  int choose_bytes() {
    const bool continues = options_.continue_at || options_.download.resume;
    if (options_.range && continues) {
      return fail(kExitUsage,
                  "-r and -C do not combine in a single fetch (the downloader continues a "
                  "range: add --split 1)");
    }
    if (options_.range) resume_.ask_ranges(options_.range->text);
    if (options_.continue_at) {
      resume_.continue_at(*options_.continue_at);
    } else if (options_.download.resume && sink_.is_file()) {
      // -C -: from what the file holds (nothing, or no file: from byte 0).
      std::error_code error;
      const auto size = std::filesystem::file_size(sink_.path(), error);
      if (!error) resume_.continue_at(size);
    }
    return kExitOk;
  }

  // A 416 to -C's "bytes=N-": nothing follows byte N, so the output is complete when
  // the server's size (Content-Range: bytes */SIZE) is N, or unsaid (curl takes any
  // such 416 as complete); another size cannot be continued.
  AttemptOutcome complete_already(const Response& response) {
    const auto value = response.headers.get("content-range");
    const auto range = value ? parse_content_range(*value) : std::nullopt;
    const std::uint64_t offset = resume_.offset();
    if (range && !range->first && range->total && *range->total != offset) {
      Error error(ErrorCategory::protocol, "cannot continue at byte " + std::to_string(offset) +
                                               ": the file on the server has " +
                                               std::to_string(*range->total) + " bytes");
      return attempt_failed(kExitRangeError, error.message(),
                            AttemptFailure{error, false, std::nullopt});
    }
    if (int failed = write_head(response); failed != kExitOk) {
      return attempt_failed(
          failed, report_.error_message,
          AttemptFailure{Error(ErrorCategory::io, report_.error_message), false, std::nullopt});
    }
    if (!options_.silent) {
      meter_.print("sluice: the output was complete already (nothing after byte " +
                   std::to_string(offset) + ")\n");
    }
    not_modified_ = true;
    return {};
  }

  // curl's warning, with what was kept: "... will retry in 2 s (3 retries left)".
  void wait_before_retry(const AttemptOutcome& outcome, int attempt,
                         std::chrono::milliseconds wait) {
    ++report_.num_retries;
    if (options_.errors_visible()) {
      const int left = options_.retry.retries - attempt;
      std::string note = outcome.message + "; retrying in " +
                         std::to_string((wait.count() + 999) / 1000) + " s (" +
                         std::to_string(left) + (left == 1 ? " retry" : " retries") + " left";
      if (resume_.written() > 0) {
        note += ", continuing after the " + std::to_string(resume_.written()) + " bytes written";
      }
      meter_.print("sluice: " + one_line(note + ")") + "\n");
    }
    std::this_thread::sleep_for(wait);
  }

  std::chrono::milliseconds elapsed_since_start() const {
    return std::chrono::duration_cast<std::chrono::milliseconds>(cli_now() - start_);
  }

  AttemptOutcome attempt_once(Client& client, const Url& url, int attempt) {
    Request request = build_request(options_);
    if (options_.upload_file == "-") request.body = start_stdin_upload();
    resume_.add_request_headers(request.headers);
    upload_size_ = request_body_length(request.body).value_or(0);
    report_.method = request.method;
    Result<Response> response = client.fetch(std::move(request));
    if (options_.verbose && response) {
      const Result<Url> answered = Url::parse(response->effective_url);
      stderr_lines().write(describe_tls(*response, answered ? answered->host : url.host));
      stderr_lines().write(describe_request_head(url, *response, options_.version));
    }
    if (!response) {
      return attempt_failed(exit_code_for(response.error()), response.error().message(),
                            failure_of(response.error()));
    }
    return take_response(*response, attempt);
  }

  AttemptOutcome take_response(Response& response, int attempt) {
    report_response(report_, response.head());
    if (!response.request_method.empty()) report_.method = response.request_method;
    report_.size_upload = upload_size_;
    if (options_.verbose) stderr_lines().write(describe_response_head(response));
    const std::string status_error =
        "The requested URL returned error: " + std::to_string(response.status);
    // A transient status (503, 429, ...) is retried while retries are left; the last
    // attempt's response is the result, as curl has it.
    if (is_transient_status(response.status) && attempt < options_.retry.retries &&
        options_.upload_file != "-") {
      return attempt_failed(
          kExitHttpError, status_error,
          failure_from_status(response.status, response.headers, report_.url_effective));
    }
    if (response.status == 416 && resume_.offset() > 0 && resume_.written() == 0) {
      return complete_already(response);
    }
    // 304 (--etag-compare, -z DATE) or 412 (-z -DATE): the copy the caller has is
    // what it asked about; its -o file stays, and it is no failure, even with -f.
    const bool condition_unmet =
        response.status == 304 ||
        (response.status == 412 && options_.time_cond && options_.time_cond->unmodified);
    if (options_.fail_on_http_error && response.status >= 400 && !condition_unmet) {
      return attempt_failed(
          kExitHttpError, status_error,
          failure_from_status(response.status, response.headers, report_.url_effective));
    }
    if (auto too_large = check_announced_size(response)) return std::move(*too_large);
    Result<std::uint64_t> skip = resume_.bytes_to_skip(response);
    if (!skip) {
      // curl's 33 when the first answer does not continue -C's offset.
      const bool range_refused = resume_.offset() > 0 && resume_.written() == 0;
      return attempt_failed(range_refused ? kExitRangeError : exit_code_for(skip.error()),
                            skip.error().message(),
                            AttemptFailure{skip.error(), false, std::nullopt});
    }
    if (int failed = write_head(response); failed != kExitOk) {
      return attempt_failed(
          failed, report_.error_message,
          AttemptFailure{Error(ErrorCategory::io, report_.error_message), false, std::nullopt});
    }
    if (condition_unmet) {
      not_modified_ = true;
      return {};
    }
    resume_.remember(response, options_.compressed);
    meter_.body_started(body_written(), body_total(response, *skip));
    AttemptOutcome written = write_body(response.body, *skip);
    // --fail-with-body: the body is the output, the status still the exit code.
    if (!written.failure && options_.fail_with_body && response.status >= 400) {
      return attempt_failed(
          kExitHttpError, status_error,
          failure_from_status(response.status, response.headers, report_.url_effective));
    }
    return written;
  }

  AttemptOutcome too_large(std::string message) {
    Error error(ErrorCategory::too_large, std::move(message));
    return attempt_failed(kExitTooLarge, error.message(),
                          AttemptFailure{error, false, std::nullopt});
  }

  // --max-filesize against Content-Length, before anything is written (curl's check;
  // a body without one is held to the limit while it arrives).
  std::optional<AttemptOutcome> check_announced_size(const Response& response) {
    if (options_.max_filesize == 0) return std::nullopt;
    const auto length = response.headers.get("content-length");
    std::uint64_t announced = 0;
    if (!length || std::from_chars(length->data(), length->data() + length->size(), announced).ec !=
                       std::errc()) {
      return std::nullopt;
    }
    if (announced <= options_.max_filesize) return std::nullopt;
    return too_large("the body is " + std::to_string(announced) +
                     " bytes, more than --max-filesize " + std::to_string(options_.max_filesize));
  }

  // -i and -I put the head before the body, -D in its own file; once per transfer
  // (a retry that continues the body does not repeat it).
  int write_head(const Response& response) {
    if (head_written_) return kExitOk;
    head_written_ = true;
    const bool head_in_output = options_.include_head || options_.head_only;
    if (!head_in_output && options_.dump_header_path.empty()) return kExitOk;
    const std::string head = response_head_text(response);
    if (!options_.dump_header_path.empty()) {
      if (int failed = dump_head(head); failed != kExitOk) return failed;
    }
    if (!head_in_output) return kExitOk;
    Result<void> wrote = open_output();
    if (wrote) wrote = sink_.write_all(std::as_bytes(std::span(head)));
    if (!wrote) return fail_quietly(wrote.error());
    head_bytes_ = head.size();
    return kExitOk;
  }

  // -D FILE: the head alone, to its own file (or stdout with "-").
  int dump_head(const std::string& head) {
    OutputSink dump(options_.dump_header_path);
    Result<void> done = dump.open();
    if (done) done = dump.write_all(std::as_bytes(std::span(head)));
    if (done) done = dump.close();
    return done ? kExitOk : fail_quietly(done.error());
  }

  int fail_quietly(const Error& error) {
    report_.error_message = one_line(error.message());
    return exit_code_for(error);
  }

  Result<void> open_output() {
    if (output_open_) return {};
    Result<void> opened = sink_.open();
    output_open_ = opened.has_value();
    if (output_open_ && sink_.is_file()) report_.filename_effective = sink_.path();  // --no-clobber
    return opened;
  }

  // The bucket's grant for the next read (a tenth of a second's worth at most),
  // after sleeping off its debt: reading slower is what makes the transport slow.
  std::size_t rate_grant(std::size_t want) {
    if (!limiter_) return want;
    const RateLimiter::Grant grant = limiter_->take(want);
    std::this_thread::sleep_until(grant.ready_at);
    return std::max<std::size_t>(grant.bytes, 1);
  }

  // The meter's total: what is in the file plus the rest the response announces
  // (its Content-Length less the `skip` bytes already written); unknown without one,
  // and for a body decoded from a compressed one.
  std::optional<std::uint64_t> body_total(const Response& response, std::uint64_t skip) const {
    const auto length = response.headers.get("content-length");
    std::uint64_t announced = 0;
    if (!length || (options_.compressed && response.headers.contains("content-encoding")) ||
        std::from_chars(length->data(), length->data() + length->size(), announced).ec !=
            std::errc() ||
        announced < skip) {
      return std::nullopt;
    }
    return body_written() + announced - skip;
  }

  // Body bytes in the output so far, every attempt's (the meter's count).
  std::uint64_t body_written() const { return sink_.bytes_written() - head_bytes_; }

  // The body into the output, without its first `skip` bytes (already written by
  // an earlier attempt).
  AttemptOutcome write_body(BodyReader& body, std::uint64_t skip) {
    if (Result<void> opened = open_output(); !opened) {
      return attempt_failed(exit_code_for(opened.error()), opened.error().message(),
                            AttemptFailure{opened.error(), false, std::nullopt});
    }
    auto next_stats = cli_now() + kStatsEvery;
    for (;;) {
      if (options_.verbose && cli_now() >= next_stats) {
        meter_.print(describe_client_stats(client_->stats()));
        next_stats = cli_now() + kStatsEvery;
      }
      // Written from where the HTTP thread staged it: no copy of our own.
      const std::size_t granted = rate_grant(kLargestRead);
      Result<BodyChunk> chunk = body.next(granted);
      if (limiter_) limiter_->refund(granted - (chunk ? chunk->size() : 0));
      if (!chunk) return incomplete(chunk.error(), failure_of(chunk.error()));
      if (chunk->empty()) {
        report_.size_download = body.bytes_received();  // a body that decodes to nothing too
        return {};
      }
      std::span<const std::byte> bytes = chunk->bytes();
      const std::size_t skipped =
          static_cast<std::size_t>(std::min<std::uint64_t>(skip, bytes.size()));
      skip -= skipped;
      bytes = bytes.subspan(skipped);
      if (options_.max_filesize > 0 && resume_.written() + bytes.size() > options_.max_filesize) {
        return too_large("the body grew past --max-filesize " +
                         std::to_string(options_.max_filesize) + " bytes");
      }
      Result<void> wrote = sink_.write_all(bytes);
      // curl's size_download: the bytes this response brought, before decoding.
      report_.size_download = body.bytes_received();
      meter_.wrote(body_written());
      resume_.wrote(bytes.size());
      if (!wrote)
        return incomplete(wrote.error(), AttemptFailure{wrote.error(), false, std::nullopt});
    }
  }

  // A connection reset or closed under a GET or HEAD is worth a --retry, as a
  // downloader retries a range (failure_from_error decides by the method).
  AttemptFailure failure_of(const Error& error) const {
    return failure_from_error(error, report_.method);
  }

  AttemptOutcome incomplete(const Error& error, AttemptFailure failure) {
    std::string message = error.message();
    if (sink_.is_file()) {
      // -C - continues a GET from the file's size (what --remove-on-error removes).
      const bool resumable = report_.method == "GET" && !options_.remove_on_error;
      message += " ('" + sink_.path() +
                 "' is incomplete: " + std::to_string(sink_.bytes_written()) + " bytes written" +
                 (resumable ? "; run the same command with -C - to resume" : "") + ")";
    }
    return attempt_failed(exit_code_for(error), std::move(message), std::move(failure));
  }

  // --remove-on-error: a failed transfer leaves no file that looks complete.
  void remove_output_on_error() {
    if (!options_.remove_on_error || !output_open_ || !sink_.is_file()) return;
    (void)sink_.close();
    std::remove(sink_.path().c_str());
    output_open_ = false;
  }

  int close_output() {
    if (!options_.etag_save.empty() && report_.http_code / 100 == 2) {
      if (Result<void> saved = save_etag_file(options_.etag_save, report_.headers.get("ETag"));
          !saved) {
        return fail_with(saved.error());
      }
    }
    if (not_modified_ && !output_open_) return kExitOk;
    if (!output_open_) {
      // A body-less response still creates the -o file, as curl does.
      if (Result<void> opened = open_output(); !opened) return fail_with(opened.error());
    }
    if (Result<void> closed = sink_.close(); !closed) {
      return fail(exit_code_for(closed.error()), closed.error().message());
    }
    if (options_.remote_time && sink_.is_file() && !not_modified_) {
      if (auto last_modified = report_.headers.get("Last-Modified")) {
        if (Result<void> set = set_remote_time(sink_.path(), *last_modified); !set)
          return fail_with(set.error());
      }
    }
    return kExitOk;
  }

  int fail_with(const Error& error) { return fail(exit_code_for(error), error.message()); }

  int fail(int exit_code, std::string message) {
    report_.error_message = one_line(message);
    if (options_.errors_visible()) print_error(report_.error_message);
    return exit_code;
  }

  // -w is printed for failures too, so scripts can read %{exitcode} and %{errormsg}.
  int finish(int exit_code) {
    std::chrono::duration<double> elapsed = cli_now() - start_;
    report_.time_total = elapsed.count();
    report_.exit_code = exit_code;
    if (options_.write_out) {
      if (Result<void> wrote = options_.write_out->print(report_); !wrote) {
        if (exit_code == kExitOk) return fail_with(wrote.error());
      }
    }
    return exit_code;
  }

  const CliOptions& options_;
  // -b FILE / -c: the run's cookie jar (null without them), saved by run().
  std::shared_ptr<CookieJar> cookie_jar_ = open_cookie_jar(options_.cookies);
  const Client* client_ = nullptr;                    // while a body is read, for -v's memory lines
  OutputSink sink_;                                   // -o FILE or stdout, opened at the first byte
  FetchMeter meter_{options_, options_.output_path};  // -o FILE's progress meter
  bool output_open_ = false;
  bool head_written_ = false;
  bool not_modified_ = false;   // a 304, -z -DATE's 412 or -C's 416: the output is left as it was
  std::size_t head_bytes_ = 0;  // of -i's head in the output
  FetchResume resume_;
  std::optional<RateLimiter> limiter_;  // --limit-rate
  std::uint64_t upload_size_ = 0;       // the request body's length, when it has one
  TransferReport report_;
  CliTimePoint start_;
};

}  // namespace

int run_transfer(const CliOptions& options) { return Transfer(options).run(); }

void print_error(std::string_view message) {
  std::string line = "sluice: " + one_line(message) + "\n";
  std::fputs(line.c_str(), stderr);
}

}  // namespace sluice::cli
