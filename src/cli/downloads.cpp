#include "cli/downloads.hpp"

#include <algorithm>
#include <atomic>
#include <csignal>
#include <cstdio>
#include <filesystem>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "cli/download_jobs.hpp"
#include "cli/exit_codes.hpp"
#include "cli/options/cookie_options.hpp"
#include "cli/options/syntax/time_condition.hpp"
#include "cli/output/json_summary.hpp"
#include "cli/output/progress.hpp"
#include "cli/output/stderr_lines.hpp"
#include "cli/output/terminal.hpp"
#include "cli/output/verbose.hpp"
#include "cli/output/write_out.hpp"
#include "cli/request_builder.hpp"
#include "cli/transfer.hpp"
#include "sluice/client.hpp"
#include "sluice/download.hpp"
#include "sluice/url.hpp"

namespace sluice::cli {
namespace {

// Ctrl-C or a TERM: every download stops within moments, keeping its file and control
// file, so the same command with -C - continues it. Set from the signal handler.
std::atomic<bool> interrupted{false};

extern "C" void on_interrupt(int) { interrupted.store(true); }

// A failed download that left its control file can continue where it stopped: the
// message says how, so a cut connection never costs the bytes already written.
std::string resume_hint(const DownloadProgress* last) {
  if (last == nullptr || last->path.empty()) return "";
  std::error_code ec;
  if (!std::filesystem::exists(control_file_path(last->path), ec)) return "";
  return "; '" + last->path + "' keeps " + std::to_string(last->bytes_done) +
         " bytes: run the same command with -C - to resume";
}

// What every download of one run shares. Owned by run_downloads' frame; the
// download threads use it through the mutex (output lines) and the display (its
// own lock).
class DownloadRun {
 public:
  DownloadRun(const CliOptions& options, Client& client, ProgressDisplay& display)
      : options_(options), client_(client), display_(display) {}

  // Runs one job; returns its exit code. Any thread.
  int run(DownloadJob& job) {
    // Progress lines and messages show the URL without a user:password it carries, so
    // a terminal or a CI log never shows the password (the library's messages neither).
    const std::size_t slot = display_.add(url_without_credentials(job.url));
    job.options.cancel = &interrupted;
    // The last report says what a failed download got (the download's thread calls
    // this, and the result is read on the same thread after download() returned).
    std::optional<DownloadProgress> last;
    job.options.on_progress = [this, slot, &last](const DownloadProgress& progress) {
      display_.update(slot, progress);
      last = progress;
    };
    Result<DownloadResult> result = download(client_, std::move(job.options));
    if (result && options_.remote_time && result->first_response.status / 100 == 2) {
      // -R: the file keeps the server's time, so a later -z FILE asks the right question.
      const auto modified = result->first_response.headers.get("last-modified").value_or("");
      if (Result<void> set = set_remote_time(result->path, modified); !set) {
        result = std::move(set).error();
      }
    }
    const int code = result ? kExitOk : exit_code_for(result.error());
    display_.end(slot, result.ok());
    report(job.url, result, code, last ? &*last : nullptr);
    return code;
  }

 private:
  void report(const std::string& url, const Result<DownloadResult>& result, int code,
              const DownloadProgress* last) {
    std::lock_guard lock(output_mu_);
    if (result && !options_.silent) {
      for (const std::string& note : result->notes) {
        display_.print("sluice: " + url_without_credentials(url) + ": " + note);
      }
    }
    if (!result && options_.errors_visible()) {
      display_.print("sluice: " + url_without_credentials(url) + ": " + result.error().message() +
                     resume_hint(last));
    }
    if (options_.download.summary_json) {
      std::fputs(json_summary(url, result, code, last).c_str(), stdout);
      std::fflush(stdout);
    }
    // A failure to write -w's text is the same as one of --json-summary's: not seen.
    if (options_.write_out)
      (void)options_.write_out->print(write_out_report(url, result, code, last));
  }

  static TransferReport write_out_report(const std::string& url,
                                         const Result<DownloadResult>& result, int code,
                                         const DownloadProgress* last) {
    TransferReport report;
    report.url = url;
    report.url_effective = url;
    report.method = "GET";  // downloads are GET requests
    report.exit_code = code;
    if (result) {
      report.filename_effective = result->path;
      // The first response's connection and head decided the download (the ranges
      // after it are more of the same).
      report_response(report, result->first_response);
      report.size_download = result->transferred;
      report.time_total = result->seconds;
      report.num_retries = result->retries;
    } else {
      report.error_message = result.error().message();
      if (last != nullptr) {
        report.filename_effective = last->path;
        report.size_download = last->bytes_done - std::min(last->bytes_done, last->resumed_from);
      }
    }
    return report;
  }

  const CliOptions& options_;
  Client& client_;
  ProgressDisplay& display_;
  std::mutex output_mu_;
};

// Runs every job, up to `at_once` at a time; returns the first failure's code.
int run_all(std::vector<DownloadJob>& jobs, DownloadRun& run, std::size_t at_once) {
  std::vector<int> codes(jobs.size(), kExitOk);
  std::atomic<std::size_t> next{0};
  auto worker = [&] {
    for (std::size_t i = next++; i < jobs.size(); i = next++) codes[i] = run.run(jobs[i]);
  };
  std::vector<std::thread> threads;
  for (std::size_t t = 1; t < std::min(at_once, jobs.size()); ++t) threads.emplace_back(worker);
  worker();
  for (std::thread& thread : threads) thread.join();
  for (int code : codes) {
    if (code != kExitOk) return code;
  }
  return kExitOk;
}

}  // namespace

ProgressMode progress_mode_for(const CliOptions& options) {
  if (options.silent) return ProgressMode::none;
  switch (options.download.progress) {
    case ProgressChoice::bar: return ProgressMode::bar;
    case ProgressChoice::line: return ProgressMode::line;
    case ProgressChoice::none: return ProgressMode::none;
    case ProgressChoice::automatic: break;
  }
  return default_progress_mode(is_terminal(2));
}

int run_downloads(const CliOptions& options) {
  Result<std::vector<std::string>> urls = collect_urls(options);
  if (!urls) {
    print_error(urls.error().message());
    return urls.error().category() == ErrorCategory::io ? kExitReadError : kExitUsage;
  }
  Result<std::vector<DownloadJob>> jobs = plan_downloads(options, *urls);
  if (!jobs) {
    print_error(jobs.error().message());
    return kExitUsage;
  }
  ClientOptions client_options = build_client_options(options);
  // One jar for every URL of the run, written out when all are done.
  client_options.cookie_jar = open_cookie_jar(options.cookies);
  // --split N means N connections over HTTP/1.1: the cap never undoes it.
  client_options.pool.max_connections_per_origin =
      std::max<std::size_t>(options.download.max_host_connections, options.download.split);
  Result<Client> client = Client::create(client_options);
  if (!client) {
    print_error(client.error().message());
    return exit_code_for(client.error());
  }
  std::signal(SIGINT, on_interrupt);
  std::signal(SIGTERM, on_interrupt);
  ProgressDisplayOptions display_options;
  display_options.mode = progress_mode_for(options);
  ProgressDisplay display(std::move(display_options));
  display.start();
  const StderrAttachment attachment(display);  // -v trace lines go above the bars
  DownloadRun run(options, *client, display);
  const std::size_t at_once = options.download.parallel ? options.download.parallel_max : 1;
  const int code = run_all(*jobs, run, at_once);
  display.finish();
  save_cookie_jar(options.cookies, client_options.cookie_jar);
  // What the downloads cost, as a single transfer reports it (-v): memory and the
  // TLS handshakes, full and resumed, of all the connections they opened.
  if (options.verbose) std::fputs(describe_client_stats(client->stats()).c_str(), stderr);
  return code;
}

}  // namespace sluice::cli
