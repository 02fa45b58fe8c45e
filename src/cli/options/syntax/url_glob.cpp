#include "cli/options/syntax/url_glob.hpp"

#include <charconv>
#include <cstdint>
#include <optional>

namespace sluice::cli {
namespace {

// One piece of a URL: a literal (one choice, not a pattern) or a set or range.
struct GlobPiece {
  std::vector<std::string> choices;
  bool is_pattern = false;
};

// Parses left to right; at_ is the index of the next unread character.
class GlobParser {
 public:
  GlobParser(std::string_view text, std::size_t max_urls) : text_(text), max_urls_(max_urls) {}

  Result<std::vector<GlobPiece>> run() {
    while (at_ < text_.size()) {
      const char c = text_[at_];
      Result<void> step = c == '{'                 ? take_set()
                          : c == '['               ? take_bracket()
                          : c == '}' || c == ']'   ? fail(at_, "unmatched close brace/bracket")
                          : c == '\\' && escapes() ? take_escaped()
                                                   : take_literal(c);
      if (!step) return std::move(step).error();
    }
    return std::move(pieces_);
  }

 private:
  // Positions count from 1, as curl's messages do.
  static Result<void> fail(std::size_t index, std::string_view what) {
    return Error(ErrorCategory::usage,
                 "position " + std::to_string(index + 1) + ": " + std::string(what));
  }

  bool escapes() const {
    if (at_ + 1 >= text_.size()) return false;
    const char next = text_[at_ + 1];
    return next == '{' || next == '}' || next == '[' || next == ']';
  }

  Result<void> take_escaped() {
    append_literal(text_.substr(at_ + 1, 1));
    at_ += 2;
    return {};
  }

  Result<void> take_literal(char c) {
    append_literal(std::string_view(&c, 1));
    ++at_;
    return {};
  }

  void append_literal(std::string_view text) {
    if (pieces_.empty() || pieces_.back().is_pattern) pieces_.push_back({{std::string()}, false});
    pieces_.back().choices.front() += text;
  }

  // {a,b,c}: no nesting, no ranges inside; an empty element is allowed, "{}" is not.
  Result<void> take_set() {
    const std::size_t open = at_;
    std::vector<std::string> choices(1);
    for (std::size_t i = open + 1; i < text_.size(); ++i) {
      const char c = text_[i];
      if (c == '\\' && i + 1 < text_.size()) {
        choices.back() += text_[++i];
      } else if (c == ',') {
        choices.emplace_back();
      } else if (c == '}') {
        if (choices.size() == 1 && choices.front().empty())
          return fail(i, "empty string within braces");
        at_ = i + 1;
        return add_pattern(std::move(choices), open);
      } else if (c == '{' || c == '[') {
        return fail(i, "nested brace");
      } else if (c == ']') {
        return fail(i, "unexpected close bracket");
      } else {
        choices.back() += c;
      }
    }
    return fail(open, "unmatched brace");
  }

  // "[": an IPv6 host and "[]" are text; anything else is a range.
  Result<void> take_bracket() {
    const std::size_t close = text_.find(']', at_ + 1);
    if (close == std::string_view::npos) return fail(at_, "bad range: no closing ']'");
    const std::string_view inside = text_.substr(at_ + 1, close - at_ - 1);
    if (inside.empty() || looks_like_ipv6(inside)) {
      append_literal(text_.substr(at_, close - at_ + 1));
      at_ = close + 1;
      return {};
    }
    const std::size_t open = at_;
    std::optional<std::vector<std::string>> choices = range_choices(inside);
    if (!choices) {
      return fail(open,
                  "bad range '[" + std::string(inside) +
                      "]' (ranges are [1-10], [01-10], [a-z], [A-Z], with an optional :STEP)");
    }
    at_ = close + 1;
    return add_pattern(std::move(*choices), open);
  }

  // Hex digits, dots and at least two colons, then perhaps %ZONE: what curl too
  // leaves alone so that http://[::1]:8080/ works without -g.
  static bool looks_like_ipv6(std::string_view inside) {
    const std::size_t zone = inside.find('%');
    const std::string_view address = inside.substr(0, zone);
    std::size_t colons = 0;
    for (char c : address) {
      const bool hex = (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F');
      if (c == ':') {
        ++colons;
      } else if (!hex && c != '.') {
        return false;
      }
    }
    if (colons < 2) return false;
    if (zone == std::string_view::npos) return true;
    const std::string_view zone_id = inside.substr(zone + 1);
    for (char c : zone_id) {
      const bool ok = (c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
                      c == '-' || c == '.' || c == '_' || c == '~' || c == '%';
      if (!ok) return false;
    }
    return !zone_id.empty();
  }

  struct Bounds {
    std::uint64_t first = 0;
    std::uint64_t last = 0;
    std::uint64_t step = 1;
  };

  static std::optional<std::uint64_t> number(std::string_view digits) {
    std::uint64_t value = 0;
    if (digits.empty() || digits.size() > 18) return std::nullopt;  // no overflow below 10^18
    auto [end, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), value);
    if (ec != std::errc() || end != digits.data() + digits.size()) return std::nullopt;
    return value;
  }

  // curl's rules: first <= last, a step of at least 1 and (unless first == last,
  // when only 1 is allowed) no larger than last - first.
  static bool valid(const Bounds& bounds) {
    if (bounds.first > bounds.last || bounds.step == 0) return false;
    if (bounds.first == bounds.last) return bounds.step == 1;
    return bounds.step <= bounds.last - bounds.first;
  }

  std::optional<std::vector<std::string>> range_choices(std::string_view inside) const {
    std::uint64_t step = 1;
    if (const std::size_t colon = inside.find(':'); colon != std::string_view::npos) {
      std::optional<std::uint64_t> parsed = number(inside.substr(colon + 1));
      if (!parsed) return std::nullopt;
      step = *parsed;
      inside = inside.substr(0, colon);
    }
    const std::size_t dash = inside.find('-');
    if (dash == std::string_view::npos) return std::nullopt;
    const std::string_view low = inside.substr(0, dash);
    const std::string_view high = inside.substr(dash + 1);
    if (low.size() == 1 && high.size() == 1 && is_letter(low[0]) && is_letter(high[0]))
      return letter_choices(low[0], high[0], step);
    std::optional<std::uint64_t> first = number(low);
    std::optional<std::uint64_t> last = number(high);
    if (!first || !last) return std::nullopt;
    // [001-100]: a first number written with a leading zero sets the width.
    const std::size_t width = low.size() > 1 && low[0] == '0' ? low.size() : 0;
    return number_choices({*first, *last, step}, width);
  }

  static bool is_letter(char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'); }

  std::optional<std::vector<std::string>> letter_choices(char first, char last,
                                                         std::uint64_t step) const {
    const bool same_case = (first >= 'a') == (last >= 'a');
    const Bounds bounds{static_cast<std::uint64_t>(first), static_cast<std::uint64_t>(last), step};
    if (!same_case || !valid(bounds)) return std::nullopt;
    std::vector<std::string> choices;
    for (std::uint64_t c = bounds.first; c <= bounds.last; c += step)
      choices.emplace_back(1, static_cast<char>(c));
    return choices;
  }

  std::optional<std::vector<std::string>> number_choices(const Bounds& bounds,
                                                         std::size_t width) const {
    if (!valid(bounds)) return std::nullopt;
    // Counted before any is made, so [1-99999999999] fails fast instead of filling memory.
    const std::uint64_t count = (bounds.last - bounds.first) / bounds.step + 1;
    if (count > max_urls_) return std::vector<std::string>(0);  // add_pattern reports it
    std::vector<std::string> choices;
    choices.reserve(count);
    for (std::uint64_t i = 0; i < count; ++i) {
      std::string text = std::to_string(bounds.first + i * bounds.step);
      if (text.size() < width) text.insert(0, width - text.size(), '0');
      choices.push_back(std::move(text));
    }
    return choices;
  }

  // Keeps the running product of the choices under the cap.
  Result<void> add_pattern(std::vector<std::string> choices, std::size_t open) {
    if (choices.empty() || choices.size() > max_urls_ / url_count_) {
      return fail(open, "the URL would expand to more than " + std::to_string(max_urls_) + " URLs");
    }
    url_count_ *= choices.size();
    pieces_.push_back({std::move(choices), true});
    return {};
  }

  std::string_view text_;
  std::size_t max_urls_;
  std::size_t at_ = 0;
  std::size_t url_count_ = 1;
  std::vector<GlobPiece> pieces_;
};

// Every combination of the pieces' choices, the last piece varying fastest (an
// odometer), which is curl's order.
std::vector<GlobbedUrl> combinations(const std::vector<GlobPiece>& pieces) {
  std::vector<GlobbedUrl> urls;
  std::vector<std::size_t> digit(pieces.size(), 0);
  while (true) {
    GlobbedUrl url;
    for (std::size_t i = 0; i < pieces.size(); ++i) {
      const std::string& text = pieces[i].choices[digit[i]];
      url.url += text;
      if (pieces[i].is_pattern) url.pattern_texts.push_back(text);
    }
    urls.push_back(std::move(url));
    std::size_t i = pieces.size();
    while (i > 0 && ++digit[i - 1] == pieces[i - 1].choices.size()) digit[--i] = 0;
    if (i == 0) return urls;
  }
}

}  // namespace

Result<std::vector<GlobbedUrl>> expand_url_glob(std::string_view pattern, std::size_t max_urls) {
  Result<std::vector<GlobPiece>> pieces = GlobParser(pattern, max_urls).run();
  if (!pieces) return std::move(pieces).error();
  return combinations(*pieces);
}

std::string with_glob_texts(std::string_view name, const std::vector<std::string>& pattern_texts) {
  std::string out;
  for (std::size_t i = 0; i < name.size(); ++i) {
    std::size_t end = i + 1;
    while (end < name.size() && name[end] >= '0' && name[end] <= '9') ++end;
    std::size_t n = 0;
    const std::string_view digits = name.substr(i + 1, end - i - 1);
    const bool numbered = name[i] == '#' && !digits.empty() && digits.size() < 10;
    if (numbered) std::from_chars(digits.data(), digits.data() + digits.size(), n);
    if (numbered && n >= 1 && n <= pattern_texts.size()) {
      out += pattern_texts[n - 1];
      i = end - 1;
    } else {
      out += name[i];
    }
  }
  return out;
}

}  // namespace sluice::cli
