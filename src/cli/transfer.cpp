#include "cli/transfer.hpp"

#include <chrono>
#include <cstdio>
#include <span>
#include <string>

#include "cli/cli_clock.hpp"
#include "cli/cookie_options.hpp"
#include "cli/exit_codes.hpp"
#include "cli/head_output.hpp"
#include "cli/output_sink.hpp"
#include "cli/request_builder.hpp"
#include "cli/verbose.hpp"
#include "cli/write_out.hpp"
#include "sluice/client.hpp"
#include "sluice/url.hpp"

namespace sluice::cli {
namespace {

// -v prints what the Client holds this often during a long body, and at its end.
constexpr std::chrono::seconds kStatsEvery{5};

// Messages can carry server-supplied text; the one-line promise must hold anyway.
std::string one_line(std::string_view message) {
  std::string line(message);
  for (char& c : line) {
    if (c == '\n' || c == '\r') c = ' ';
  }
  return line;
}

// One transfer from start to exit code. Owned by run_transfer's frame, main thread.
class Transfer {
 public:
  explicit Transfer(const CliOptions& options) : options_(options) {}

  int run() {
    report_.url_effective = options_.urls.front();
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
    Request request = build_request(options_);
    ClientOptions client_options = build_client_options(options_);
    client_options.cookie_jar = cookie_jar_;
    // The client outlives the response below: destroying it first would cancel the body.
    Result<Client> client = Client::create(client_options);
    if (!client) return fail_with(client.error());
    if (options_.verbose) {
      std::fputs(describe_request_head(request, *url, client_options).c_str(), stderr);
    }
    Result<Response> response = client->fetch(std::move(request));
    if (!response) return fail_with(response.error());
    client_ = &*client;
    const int exit_code = take_response(*response);
    if (options_.verbose) std::fputs(describe_client_stats(client->stats()).c_str(), stderr);
    client_ = nullptr;
    return exit_code;
  }

  int take_response(Response& response) {
    report_.http_code = response.status;
    report_.version = response.version;
    report_.num_redirects = response.redirects;
    if (!response.effective_url.empty()) report_.url_effective = response.effective_url;
    report_.content_type = std::string(response.headers.get("Content-Type").value_or(""));
    report_.timing = response.timing;
    report_.remote_ip = response.remote_ip;
    report_.remote_port = response.remote_port;
    report_.local_ip = response.local_ip;
    report_.local_port = response.local_port;
    if (options_.verbose) std::fputs(describe_response_head(response).c_str(), stderr);
    if (options_.fail_on_http_error && response.status >= 400) {
      return fail(kExitHttpError,
                  "The requested URL returned error: " + std::to_string(response.status));
    }
    const bool head_in_output = options_.include_head || options_.head_only;
    const std::string head =
        head_in_output || !options_.dump_header_path.empty() ? response_head_text(response) : "";
    if (!options_.dump_header_path.empty()) {
      if (int failed = dump_head(head); failed != kExitOk) return failed;
    }
    return write_body(response.body, head_in_output ? head : std::string());
  }

  // -D FILE: the head alone, to its own file (or stdout with "-").
  int dump_head(const std::string& head) {
    OutputSink dump(options_.dump_header_path);
    Result<void> done = dump.open();
    if (done) done = dump.write_all(std::as_bytes(std::span(head)));
    if (done) done = dump.close();
    return done ? kExitOk : fail_with(done.error());
  }

  // `head` (for -i and -I) goes first, into the same output as the body.
  int write_body(BodyReader& body, const std::string& head) {
    OutputSink sink(options_.output_path);
    if (Result<void> opened = sink.open(); !opened) return fail_with(opened.error());
    if (!head.empty()) {
      if (Result<void> wrote = sink.write_all(std::as_bytes(std::span(head))); !wrote) {
        return fail_incomplete(wrote.error(), sink);
      }
    }
    auto next_stats = cli_now() + kStatsEvery;
    for (;;) {
      if (options_.verbose && cli_now() >= next_stats) {
        std::fputs(describe_client_stats(client_->stats()).c_str(), stderr);
        next_stats = cli_now() + kStatsEvery;
      }
      // Written from where the HTTP thread staged it: no copy of our own.
      Result<BodyChunk> chunk = body.next();
      if (!chunk) return fail_incomplete(chunk.error(), sink);
      if (chunk->empty()) break;
      Result<void> wrote = sink.write_all(chunk->bytes());
      report_.size_download = sink.bytes_written() - head.size();
      if (!wrote) return fail_incomplete(wrote.error(), sink);
    }
    if (Result<void> closed = sink.close(); !closed) return fail_incomplete(closed.error(), sink);
    return kExitOk;
  }

  int fail_incomplete(const Error& error, const OutputSink& sink) {
    std::string message = error.message();
    if (sink.is_file()) {
      message += " ('" + sink.path() + "' is incomplete: " +
                 std::to_string(sink.bytes_written()) + " bytes written)";
    }
    return fail(exit_code_for(error), std::move(message));
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
      std::string text = options_.write_out->expand(report_);
      OutputSink out("");
      if (Result<void> wrote = out.write_all(std::as_bytes(std::span(text))); !wrote) {
        if (exit_code == kExitOk) return fail_with(wrote.error());
      }
    }
    return exit_code;
  }

  const CliOptions& options_;
  // -b FILE / -c: the run's cookie jar (null without them), saved by run().
  std::shared_ptr<CookieJar> cookie_jar_ = open_cookie_jar(options_.cookies);
  const Client* client_ = nullptr;  // while a body is read, for -v's memory lines
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
