// -g/--globoff, and what globbing does to a parsed command line: each URL argument
// becomes the URLs its patterns stand for (url_glob.cpp), and its -o (the n-th -o
// goes with the n-th URL argument, as in curl) has #N filled in for each. It runs after parsing because -g applies wherever it stands, as in curl,
// and before -G puts data into the query, so the data is never taken as a pattern.

#include <algorithm>
#include <array>
#include <set>

#include "cli/options/option_spec.hpp"
#include "cli/options/syntax/url_glob.hpp"

namespace sluice::cli {
namespace {

constexpr std::array<OptionSpec, 1> kOptions{{
    {'g', "globoff", false,
     [](ParseState& s, std::string_view) -> Result<void> {
       s.options.globoff = true;
       return {};
     }},
}};

Error bad_glob(std::string_view where, std::string_view url, const Error& error) {
  return usage_error(std::string(where) + "bad URL glob in '" + std::string(url) +
                     "': " + error.message() + " (-g/--globoff sends {} and [] as they are)");
}

// Two URLs writing one file would overwrite each other (curl lets them, one after
// the other); with -Z they would write it at once. Refused before anything runs.
Result<void> check_distinct(const std::vector<std::string>& paths) {
  std::set<std::string_view> seen;
  for (const std::string& path : paths) {
    if (!seen.insert(path).second) {
      return usage_error("-o names the file '" + path +
                         "' for several URLs: use #1, #2 ... in a glob's -o for the "
                         "patterns' text, and a different -o for each URL");
    }
  }
  return {};
}

}  // namespace

std::span<const OptionSpec> url_glob_option_specs() { return kOptions; }

Result<std::vector<std::string>> globbed_urls(bool globoff, std::string_view url,
                                              std::string_view where) {
  if (globoff) return std::vector<std::string>{std::string(url)};
  Result<std::vector<GlobbedUrl>> expanded = expand_url_glob(url, kMaxGlobbedUrls);
  if (!expanded) return bad_glob(where, url, expanded.error());
  std::vector<std::string> urls;
  urls.reserve(expanded->size());
  for (GlobbedUrl& one : *expanded) urls.push_back(std::move(one.url));
  return urls;
}

Result<void> expand_url_globs(CliOptions& options) {
  const std::vector<std::string>& outputs = options.output_arguments;
  if (outputs.size() > 1 && outputs.size() != options.urls.size()) {
    const std::size_t count = options.urls.size();
    return usage_error(std::to_string(outputs.size()) + " -o options for " + std::to_string(count) +
                       (count == 1 ? " URL" : " URLs") +
                       ": give one -o per URL, in the URLs' order, or -O/--output-dir "
                       "to name each file from its URL");
  }
  if (outputs.size() > 1 && std::find(outputs.begin(), outputs.end(), "-") != outputs.end()) {
    return usage_error("-o -: with several URLs each -o names a file (stdout takes one fetch)");
  }
  // Each -o names the files of one URL argument, the n-th -o the n-th URL's, as curl
  // pairs them; "-o -" stays stdout for every URL. One -o with several URLs is
  // refused when the downloads are planned (download_jobs.cpp).
  const bool name_each = !options.writes_to_stdout() && outputs.size() == options.urls.size();
  std::vector<std::string> urls;
  std::vector<std::string> paths;
  for (std::size_t i = 0; i < options.urls.size(); ++i) {
    const std::string& argument = options.urls[i];
    Result<std::vector<GlobbedUrl>> expanded = options.globoff
                                                   ? std::vector<GlobbedUrl>{{argument, {}}}
                                                   : expand_url_glob(argument, kMaxGlobbedUrls);
    if (!expanded) return bad_glob("", argument, expanded.error());
    for (GlobbedUrl& one : *expanded) {
      if (name_each) paths.push_back(with_glob_texts(outputs[i], one.pattern_texts));
      urls.push_back(std::move(one.url));
    }
  }
  options.urls = std::move(urls);
  if (!name_each) return {};
  if (paths.size() == 1) {
    options.output_path = std::move(paths.front());
    return {};
  }
  if (Result<void> distinct = check_distinct(paths); !distinct) return distinct;
  options.output_paths = std::move(paths);
  return {};
}

}  // namespace sluice::cli
