#include "web/cookie_match.hpp"

#include <libpsl.h>

namespace sluice {

std::string lowercase_ascii(std::string_view text) {
  std::string out(text);
  for (char& c : out) {
    if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
  }
  return out;
}

bool domain_matches(std::string_view host, std::string_view domain) {
  if (host == domain) return true;
  if (domain.empty() || host.size() <= domain.size() + 1) return false;
  return host.ends_with(domain) && host[host.size() - domain.size() - 1] == '.' &&
         !is_ip_literal(host);
}

bool path_matches(std::string_view request_path, std::string_view cookie_path) {
  if (request_path == cookie_path) return true;
  if (!request_path.starts_with(cookie_path)) return false;
  return cookie_path.ends_with('/') || request_path[cookie_path.size()] == '/';
}

std::string default_cookie_path(std::string_view request_path) {
  if (request_path.empty() || request_path.front() != '/') return "/";
  const std::size_t last = request_path.rfind('/');
  if (last == 0) return "/";
  return std::string(request_path.substr(0, last));
}

bool is_public_suffix(const std::string& domain) {
  // The built-in list is compiled into libpsl: static, never freed, safe to share.
  static const psl_ctx_t* const psl = psl_builtin();
  if (psl == nullptr) return domain.find('.') == std::string::npos;
  return psl_is_public_suffix2(psl, domain.c_str(), PSL_TYPE_ANY) != 0;
}

}  // namespace sluice
