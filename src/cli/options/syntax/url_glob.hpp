#pragma once
// curl's URL globbing, as its manual describes it: a URL argument holding sets
// ({a,b,c}) and ranges ([1-100], [a-z], [001-100], [0-100:5]) stands for every URL
// its patterns make, in the order curl makes them (the rightmost pattern varies
// fastest). A -o name refers to each URL's pattern texts with #1, #2, ...
// Pure functions: no I/O, no state; any thread.

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

#include "sluice/error.hpp"

namespace sluice::cli {

/// One URL a glob stands for, with the text each of its patterns gave it (first
/// pattern first); a literal part of the URL is not a pattern.
struct GlobbedUrl {
  std::string url;
  std::vector<std::string> pattern_texts;
};

/// More URLs than this from one command is surely a mistake (and each becomes a job
/// held in memory before the first request): an error, not a long run.
inline constexpr std::size_t kMaxGlobbedUrls = 100000;

/// Every URL `pattern` stands for, at most `max_urls` (1 or more). A bracketed IPv6 host
/// ([::1], [fe80::1%25eth0]) and "[]" are literal text, as in curl; \{ \} \[ \] are
/// the characters themselves, and inside a set \ takes the next character as it is.
/// Errors (category usage) say what is wrong and at which position, counted from 1
/// as curl counts it: "position 20: unmatched '{'".
Result<std::vector<GlobbedUrl>> expand_url_glob(std::string_view pattern, std::size_t max_urls);

/// `name` with each #N (N from 1 to the number of patterns) replaced by the N-th
/// pattern's text; any other '#' stays as it is, as in curl.
std::string with_glob_texts(std::string_view name, const std::vector<std::string>& pattern_texts);

}  // namespace sluice::cli
