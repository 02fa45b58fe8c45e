#include "cli/download_jobs.hpp"

#include <cerrno>
#include <cstring>
#include <memory>
#include <sstream>

#include "cli/options/option_spec.hpp"
#include "cli/options/syntax/url_guess.hpp"
#include "cli/request_builder.hpp"

namespace sluice::cli {
namespace {

// A list's URLs are globbed as the command line's are (unless -g): a batch file of
// "https://host/part[001-120].bin" lines is what globbing is for.
Result<void> add_list(const CliOptions& options, const std::string& list, const std::string& text,
                      std::vector<std::string>& urls) {
  std::istringstream lines(text);
  std::string line;
  for (std::size_t number = 1; std::getline(lines, line); ++number) {
    while (!line.empty() && (line.back() == '\r' || line.back() == ' ' || line.back() == '\t')) {
      line.pop_back();
    }
    std::size_t start = line.find_first_not_of(" \t");
    if (start == std::string::npos || line[start] == '#') continue;
    const std::string where = "--input-file " + list + " line " + std::to_string(number) + ": ";
    Result<std::vector<std::string>> globbed = globbed_urls(
        options.globoff, with_guessed_scheme(std::string_view(line).substr(start)), where);
    if (!globbed) return std::move(globbed).error();
    urls.insert(urls.end(), globbed->begin(), globbed->end());
  }
  return {};
}

}  // namespace

Result<std::vector<std::string>> collect_urls(const CliOptions& options) {
  std::vector<std::string> urls = options.urls;
  for (const std::string& list : options.download.url_lists) {
    Result<std::string> text = read_whole_file("--input-file", list);
    if (!text) return std::move(text).error();
    if (Result<void> added = add_list(options, list, *text, urls); !added)
      return std::move(added).error();
  }
  if (urls.empty()) {
    return usage_error("no URL given (usage: sluice [options] URL...; try 'sluice --help')");
  }
  return urls;
}

Result<std::vector<DownloadJob>> plan_downloads(const CliOptions& options,
                                                const std::vector<std::string>& urls) {
  if (options.has_body() || (!options.method.empty() && options.method != "GET")) {
    return usage_error(
        "downloads are GET requests: -d, -F, -T and -X cannot be combined "
        "with -O, -J, -C, -Z, --input-file, --split, --checksum or several URLs");
  }
  const bool to_stdout = options.output_path == "-";
  if (to_stdout)
    return usage_error("-o -: a download goes to a file (drop -o - to fetch to stdout)");
  // Several -o (or a glob's -o with #1, #2 ...) name each file, when no list added URLs.
  const bool named_each =
      !options.output_paths.empty() && options.output_paths.size() == urls.size();
  if (!options.output_path.empty() && urls.size() > 1 && !named_each) {
    return usage_error(
        "-o names one file, but " + std::to_string(urls.size()) +
        " URLs were given (give one -o per URL, or use -O or --output-dir to name each "
        "from its URL)");
  }
  if (options.download.sha256 && urls.size() > 1) {
    return usage_error("--checksum gives one file's SHA-256, but " + std::to_string(urls.size()) +
                       " URLs were given");
  }
  if (!options.download.mirrors.empty() && urls.size() > 1) {
    return usage_error("--mirror names other URLs of one file, but " + std::to_string(urls.size()) +
                       " URLs were given");
  }
  // The downloader keeps one range in a file it can resume: "A-B" or "A-".
  std::optional<DownloadOptions::ByteRange> range;
  if (options.range) {
    const std::vector<ByteRange>& asked = options.range->ranges;
    if (asked.size() != 1 || !asked.front().first) {
      return usage_error("-r " + options.range->text +
                         ": the downloader takes one range from a first byte (A-B or A-); a "
                         "single fetch (no downloader options) sends any range as curl does");
    }
    range = DownloadOptions::ByteRange{*asked.front().first, asked.front().last};
    if (options.continue_at) return usage_error("-r and -C OFFSET do not combine (-C - does)");
  }
  std::vector<DownloadJob> jobs;
  jobs.reserve(urls.size());
  // One request for all: downloads take no body (refused above), so the URL is all
  // that differs between them.
  const Request request = build_request(options);
  // --limit-rate-total: one budget that every download of the run takes from.
  const auto overall = options.limit_rate_total > 0
                           ? std::make_shared<SharedRateLimit>(options.limit_rate_total)
                           : nullptr;
  for (std::size_t i = 0; i < urls.size(); ++i) {
    const std::string& url = urls[i];
    DownloadJob job{url, {}};
    DownloadOptions& download = job.options;
    download.request = request;
    download.request.url = url;
    download.target.path = named_each ? options.output_paths[i] : options.output_path;
    download.target.directory = options.download.output_dir;
    download.target.name_from_content_disposition = options.download.remote_header_name;
    download.target.create_directories = options.download.create_dirs;
    download.resume = options.download.resume;
    download.resume_from = options.continue_at;
    download.range = range;
    download.target.keep_existing = options.no_clobber;
    download.target.overwrite_server_named_file = options.clobber;
    download.ranges = options.download.split;
    download.sha256 = options.download.sha256;
    download.mirrors = options.download.mirrors;
    download.max_bytes_per_second = options.limit_rate;
    download.shared_rate_limit = overall;
    download.retry = options.retry;
    jobs.push_back(std::move(job));
  }
  return jobs;
}

}  // namespace sluice::cli
