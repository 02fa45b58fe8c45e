// -b, -c and -j (see cookie_options.hpp): the option table and the run's jar.
#include "cli/options/cookie_options.hpp"

#include <sys/stat.h>
#include <array>
#include <cerrno>
#include <cstdio>

#include "cli/options/option_spec.hpp"
#include "sluice/headers.hpp"

namespace sluice::cli {
namespace {

// curl's rule: a '=' makes it cookie data, otherwise it names a file.
Result<void> apply_cookie(ParseState& s, std::string_view v) {
  CookieCliOptions& cookies = s.options.cookies;
  if (v.find('=') == std::string_view::npos) {
    if (v.empty()) {
      // curl's `-b ""`: the engine on, no file read.
      cookies.load_files.emplace_back();
      return {};
    }
    cookies.load_files.emplace_back(v);
    return {};
  }
  if (auto valid = validate_header_value(v); !valid) {
    return usage_error("-b/--cookie: " + valid.error().message());
  }
  // The last -b DATA counts, as in curl: the one before is taken back out.
  if (!cookies.literal.empty()) {
    std::erase_if(s.options.headers, [&](const Header& header) {
      return iequals(header.name, "cookie") && header.value == cookies.literal;
    });
  }
  cookies.literal = std::string(v);
  s.options.headers.push_back(Header{"Cookie", cookies.literal});
  return {};
}

const std::array<OptionSpec, 3> kCookieOptions = {{
    {'b', "cookie", true, apply_cookie},
    {'c', "cookie-jar", true,
     [](ParseState& s, std::string_view v) -> Result<void> {
       if (v.empty()) return usage_error("-c/--cookie-jar needs a file name (or - for stdout)");
       s.options.cookies.jar_file = std::string(v);
       return {};
     }},
    {'j', "junk-session-cookies", false,
     [](ParseState& s, std::string_view) -> Result<void> {
       s.options.cookies.junk_session = true;
       return {};
     }},
}};

void warn(const std::string& message) {
  std::fputs(("sluice: warning: " + message + "\n").c_str(), stderr);
}

}  // namespace

std::span<const OptionSpec> cookie_option_specs() { return kCookieOptions; }

std::shared_ptr<CookieJar> open_cookie_jar(const CookieCliOptions& options) {
  if (!options.engine_on()) return nullptr;
  auto jar = std::make_shared<CookieJar>();
  for (const std::string& path : options.load_files) {
    if (path.empty()) continue;
    struct stat info {};
    if (::stat(path.c_str(), &info) != 0 && errno == ENOENT) continue;
    if (auto loaded = jar->load_file(path, options.junk_session); !loaded) {
      warn(loaded.error().message());
    }
  }
  return jar;
}

void save_cookie_jar(const CookieCliOptions& options, const std::shared_ptr<CookieJar>& jar) {
  if (!jar || options.jar_file.empty()) return;
  if (options.jar_file == "-") {
    const std::string text = jar->to_netscape_text();
    std::fwrite(text.data(), 1, text.size(), stdout);
    std::fflush(stdout);
    return;
  }
  if (auto saved = jar->save_file(options.jar_file); !saved) {
    warn("cookies not saved: " + saved.error().message());
  }
}

}  // namespace sluice::cli
