// Fuzz target: expand_url_glob and with_glob_texts (src/cli/options/url_glob), the
// command line's {a,b} and [1-100:5] expander. A URL argument is the user's text, and
// a script may pass any bytes.
// Input: a cap byte (the maximum URL count: 1 + byte * 8, up to 2,041; the command's
// 100,000 is the same check with a larger number, and 100,000 URLs under ASan take
// seconds an input), then the URL pattern.
// Invariants checked: an expansion holds 1 to `cap` URLs, each with as many pattern
// texts as the first, and each URL is its literal parts and its pattern texts in
// order; the pattern texts of consecutive URLs change like an odometer (the last
// varies fastest); the same pattern under the largest cap expands to the same URLs;
// a pattern with no { [ or \ is its own only URL; a refusal names a position in the
// pattern; with_glob_texts puts the N-th text where #N stands. (Past 2,000 URLs the
// per-URL checks run on a sample, to keep each run well under a second.)

#include <cstddef>
#include <cstdint>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "cli/options/syntax/url_glob.hpp"
#include "fuzz_input.hpp"

namespace {

using sluice::cli::expand_url_glob;
using sluice::cli::GlobbedUrl;
using sluice::cli::kMaxGlobbedUrls;
using sluice::fuzz::check;
using sluice::fuzz::FuzzInput;

// Expansions longer than this are checked on a sample (every 97th URL), and not
// expanded a second time: 100,000 URLs under ASan take seconds.
constexpr std::size_t kChecked = 2000;

void check_refusal(const sluice::Error& error, std::string_view pattern) {
  const std::string& message = error.message();
  check(message.starts_with("position "), "a glob error names a position");
  const std::size_t position = std::stoul(message.substr(9));
  check(position >= 1 && position <= pattern.size(), "a glob error's position is in the pattern");
}

// The texts of each URL, read as odometer digits, only move forward: between two
// consecutive URLs the first text that differs is followed only by texts that are
// back at the first URL's.
void check_order(const std::vector<GlobbedUrl>& urls) {
  const std::vector<std::string>& first = urls.front().pattern_texts;
  for (std::size_t i = 1; i < urls.size() && i <= kChecked; ++i) {
    const std::vector<std::string>& before = urls[i - 1].pattern_texts;
    const std::vector<std::string>& now = urls[i].pattern_texts;
    std::size_t changed = 0;
    while (changed < now.size() && now[changed] == before[changed]) ++changed;
    // Repeated choices ({a,a}) make a step look like no change; only check real steps.
    for (std::size_t j = changed + 1; changed < now.size() && j < now.size(); ++j) {
      check(now[j] == first[j], "the patterns after the one that stepped start again");
    }
  }
}

void check_expansion(const std::vector<GlobbedUrl>& urls, std::string_view pattern,
                     std::size_t cap) {
  check(!urls.empty() && urls.size() <= cap, "an expansion holds 1 to cap URLs");
  const std::size_t patterns = urls.front().pattern_texts.size();
  std::string numbered;
  for (std::size_t n = 1; n <= patterns; ++n) numbered += "#" + std::to_string(n) + "|";
  // The per-URL checks cost more than the expansion: a sample of a long list.
  const std::size_t step = urls.size() > kChecked ? 97 : 1;
  for (std::size_t i = 0; i < urls.size(); i += step) {
    const GlobbedUrl& url = urls[i];
    check(url.pattern_texts.size() == patterns, "every URL has a text for every pattern");
    std::string joined;
    for (const std::string& text : url.pattern_texts) joined += text + "|";
    check(sluice::cli::with_glob_texts(numbered, url.pattern_texts) == joined,
          "#N stands for the N-th pattern's text");
    // Each text appears in the URL, in order.
    std::size_t at = 0;
    for (const std::string& text : url.pattern_texts) {
      at = url.url.find(text, at);
      check(at != std::string::npos, "a URL holds its pattern texts in order");
      at += text.size();
    }
  }
  check_order(urls);
  if (pattern.find_first_of("{[\\") == std::string_view::npos) {
    check(urls.size() == 1 && urls.front().url == pattern && patterns == 0,
          "a pattern without { [ or \\ is its own only URL");
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  FuzzInput in(data, size);
  const std::size_t cap = 1 + std::size_t{in.byte()} * 8;
  const std::string_view pattern = in.take(in.size());
  auto urls = expand_url_glob(pattern, cap);
  if (!urls) {
    check_refusal(urls.error(), pattern);
    return 0;
  }
  check_expansion(*urls, pattern, cap);
  if (cap < kMaxGlobbedUrls && urls->size() <= kChecked) {
    auto all = expand_url_glob(pattern, kMaxGlobbedUrls);
    check(all.ok() && all->size() == urls->size(), "a larger cap gives the same URLs");
    for (std::size_t i = 0; i < urls->size(); ++i) {
      check((*all)[i].url == (*urls)[i].url, "a larger cap gives the same URLs");
    }
  }
  // with_glob_texts leaves what is not #1..#N alone.
  const std::vector<std::string>& texts = urls->front().pattern_texts;
  check(sluice::cli::with_glob_texts(pattern, {}) == pattern, "with no texts a name is unchanged");
  (void)sluice::cli::with_glob_texts(pattern, texts);
  return 0;
}
