// -g/--globoff, and what globbing does to a parsed command line: each URL argument
// becomes the URLs its patterns stand for (url_glob.cpp), and -o's #N is filled in
// for each. It runs after parsing because -g applies wherever it stands, as in curl,
// and before -G puts data into the query, so the data is never taken as a pattern.

#include <array>
#include <set>

#include "cli/options/option_spec.hpp"
#include "cli/options/url_glob.hpp"

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
Result<void> check_distinct(const std::vector<std::string>& paths, std::string_view output) {
  std::set<std::string_view> seen;
  for (const std::string& path : paths) {
    if (!seen.insert(path).second) {
      return usage_error("-o '" + std::string(output) + "' names the file '" + path +
                         "' for several URLs of the glob: use #1, #2 ... for the patterns' text");
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
  if (options.globoff) return {};
  // -o names one file, for one URL argument (curl's -o goes with the first URL);
  // "-o -" stays stdout for every URL.
  const bool name_each = options.urls.size() == 1 && !options.writes_to_stdout();
  std::vector<std::string> urls;
  std::vector<std::string> paths;
  for (const std::string& argument : options.urls) {
    Result<std::vector<GlobbedUrl>> expanded = expand_url_glob(argument, kMaxGlobbedUrls);
    if (!expanded) return bad_glob("", argument, expanded.error());
    for (GlobbedUrl& one : *expanded) {
      if (name_each) paths.push_back(with_glob_texts(options.output_path, one.pattern_texts));
      urls.push_back(std::move(one.url));
    }
  }
  options.urls = std::move(urls);
  if (!name_each) return {};
  if (paths.size() == 1) {
    options.output_path = std::move(paths.front());
    return {};
  }
  if (Result<void> distinct = check_distinct(paths, options.output_path); !distinct)
    return distinct;
  options.output_paths = std::move(paths);
  return {};
}

}  // namespace sluice::cli
