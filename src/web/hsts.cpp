#include "web/hsts.hpp"

#include <algorithm>

#include "core/ascii_case.hpp"
#include "core/http_token.hpp"
#include "web/cookie_match.hpp"

namespace sluice {
namespace {

constexpr std::int64_t kMaxAgeCap = std::int64_t{1} << 31;

bool is_ows(char c) { return c == ' ' || c == '\t'; }

// Reads one directive at the front of `text` (up to the next ';' outside quotes);
// false when it is malformed.
class DirectiveCursor {
 public:
  explicit DirectiveCursor(std::string_view text) : text_(text) {}

  bool done() const { return at_ >= text_.size(); }

  // The next directive's name (lowercased) and value; name "" for an empty one.
  bool next(std::string& name, std::optional<std::string>& value) {
    name.clear();
    value.reset();
    skip_ows();
    const std::size_t start = at_;
    while (at_ < text_.size() && is_token_char(text_[at_])) ++at_;
    name = ascii_lowercase(text_.substr(start, at_ - start));
    skip_ows();
    if (at_ < text_.size() && text_[at_] == '=') {
      ++at_;
      skip_ows();
      std::string read;
      if (!read_value(read)) return false;
      value = std::move(read);
      skip_ows();
    }
    if (at_ < text_.size() && text_[at_] != ';') return false;
    ++at_;  // past the ';' (or the end)
    return !(name.empty() && value);
  }

 private:
  void skip_ows() {
    while (at_ < text_.size() && is_ows(text_[at_])) ++at_;
  }

  bool read_value(std::string& out) {
    if (at_ < text_.size() && text_[at_] == '"') {
      for (++at_; at_ < text_.size(); ++at_) {
        if (text_[at_] == '"') {
          ++at_;
          return true;
        }
        if (text_[at_] == '\\' && ++at_ == text_.size()) return false;
        out += text_[at_];
      }
      return false;  // unterminated
    }
    const std::size_t start = at_;
    while (at_ < text_.size() && is_token_char(text_[at_])) ++at_;
    out = std::string(text_.substr(start, at_ - start));
    return !out.empty();
  }

  std::string_view text_;
  std::size_t at_ = 0;
};

std::optional<std::int64_t> max_age_seconds(const std::string& digits) {
  if (digits.empty()) return std::nullopt;
  std::int64_t value = 0;
  for (const char c : digits) {
    if (c < '0' || c > '9') return std::nullopt;
    value = std::min(kMaxAgeCap, value * 10 + (c - '0'));
  }
  return value;
}

}  // namespace

std::optional<HstsDirectives> parse_strict_transport_security(std::string_view value) {
  HstsDirectives directives;
  bool seen_max_age = false;
  DirectiveCursor cursor(value);
  std::string name;
  std::optional<std::string> argument;
  while (!cursor.done()) {
    if (!cursor.next(name, argument)) return std::nullopt;
    if (name == "max-age") {
      const auto seconds = argument ? max_age_seconds(*argument) : std::nullopt;
      if (seen_max_age || !seconds) return std::nullopt;
      seen_max_age = true;
      directives.max_age = std::chrono::seconds(*seconds);
    } else if (name == "includesubdomains") {
      if (directives.include_subdomains || argument) return std::nullopt;
      directives.include_subdomains = true;
    }
  }
  if (!seen_max_age) return std::nullopt;
  return directives;
}

std::string hsts_host_key(std::string_view host) {
  if (host.ends_with('.')) host.remove_suffix(1);
  return ascii_lowercase(host);
}

HstsStore::HstsStore(std::size_t max_hosts) : max_hosts_(std::max<std::size_t>(1, max_hosts)) {}

void HstsStore::update(std::string_view host, std::string_view value, UnixSeconds now) {
  if (auto directives = parse_strict_transport_security(value)) update(host, *directives, now);
}

void HstsStore::update(std::string_view host, const HstsDirectives& directives, UnixSeconds now) {
  if (host.empty() || is_ip_literal(host)) return;
  std::string key = hsts_host_key(host);
  if (directives.max_age.count() == 0) {
    hosts_.erase(key);
    return;
  }
  insert(Entry{std::move(key), directives.include_subdomains, now + directives.max_age.count()},
         now);
}

bool HstsStore::applies_to(std::string_view host, UnixSeconds now) const {
  if (host.empty() || is_ip_literal(host)) return false;
  const std::string key = hsts_host_key(host);
  std::string_view domain = key;
  for (bool exact = true;; exact = false) {
    const auto found = hosts_.find(domain);
    if (found != hosts_.end() && found->second.expires > now &&
        (exact || found->second.include_subdomains)) {
      return true;
    }
    const std::size_t dot = domain.find('.');
    if (dot == std::string_view::npos) return false;
    domain.remove_prefix(dot + 1);
  }
}

std::vector<HstsStore::Entry> HstsStore::entries(UnixSeconds now) const {
  std::vector<Entry> out;
  for (const auto& [host, entry] : hosts_) {
    if (entry.expires > now) out.push_back(entry);
  }
  return out;
}

void HstsStore::restore(Entry entry, UnixSeconds now) {
  if (entry.expires <= now || entry.host.empty() || is_ip_literal(entry.host)) return;
  entry.host = hsts_host_key(entry.host);
  insert(std::move(entry), now);
}

// Expired hosts go first; when every host is live, the one that expires first.
void HstsStore::insert(Entry entry, UnixSeconds now) {
  if (!hosts_.contains(entry.host) && hosts_.size() >= max_hosts_) {
    std::erase_if(hosts_, [now](const auto& item) { return item.second.expires <= now; });
    if (hosts_.size() >= max_hosts_) {
      hosts_.erase(std::min_element(hosts_.begin(), hosts_.end(), [](const auto& a, const auto& b) {
        return a.second.expires < b.second.expires;
      }));
    }
  }
  std::string key = entry.host;
  hosts_.insert_or_assign(std::move(key), std::move(entry));
}

}  // namespace sluice
