// The transfer options of the command line: what each does to a ParseState. The
// parser that walks this table and the others is in cli_options.cpp.
// Ownership: a constant table; its functions run on the main thread while parsing.

#include <algorithm>
#include <array>
#include <charconv>
#include <cstdio>
#include <cstring>
#include <limits>
#include <string_view>

#include "cli/options/option_spec.hpp"
#include "cli/options/syntax/url_guess.hpp"

namespace sluice::cli {

namespace {

std::string_view trim(std::string_view text) {
  while (!text.empty() && (text.front() == ' ' || text.front() == '\t')) text.remove_prefix(1);
  while (!text.empty() && (text.back() == ' ' || text.back() == '\t')) text.remove_suffix(1);
  return text;
}

Result<void> apply_header(ParseState& state, std::string_view text) {
  std::size_t colon = text.find(':');
  if (colon == std::string_view::npos) {
    // curl's "Name;" sends the header with an empty value.
    if (text.size() > 1 && text.back() == ';' && trim(text) == text) {
      std::string name(text.substr(0, text.size() - 1));
      if (Result<void> valid = validate_header_name(name); !valid) {
        return usage_error("-H '" + std::string(text) + "': " + valid.error().message());
      }
      state.options.headers.push_back({std::move(name), ""});
      return {};
    }
    return usage_error("-H '" + std::string(text) + "': expected 'Name: value'");
  }
  std::string name(text.substr(0, colon));
  std::string value(trim(text.substr(colon + 1)));
  if (Result<void> valid = validate_header(name, value); !valid) {
    return usage_error("-H '" + std::string(text) + "': " + valid.error().message());
  }
  if (value.empty()) {
    state.options.removed_headers.push_back(std::move(name));
  } else {
    state.options.headers.push_back({std::move(name), std::move(value)});
  }
  return {};
}

// curl's -H @FILE (@- for stdin): one header per line, CR LF or LF, empty lines
// skipped; each line is taken as -H would take it. An unreadable file is a warning
// and the transfer runs without its headers, as curl does.
Result<void> apply_header_or_file(ParseState& state, std::string_view text) {
  if (!text.starts_with('@')) return apply_header(state, text);
  Result<std::string> bytes = read_whole_file("-H", std::string(text.substr(1)));
  if (!bytes) {
    std::fputs(("sluice: warning: " + bytes.error().message() + "\n").c_str(), stderr);
    return {};
  }
  std::string_view rest = *bytes;
  while (!rest.empty()) {
    const std::size_t newline = std::min(rest.find('\n'), rest.size());
    std::string_view line = rest.substr(0, newline);
    rest.remove_prefix(std::min(newline + 1, rest.size()));
    if (line.ends_with('\r')) line.remove_suffix(1);
    if (line.empty()) continue;
    if (Result<void> added = apply_header(state, line); !added) return added;
  }
  return {};
}

Result<void> apply_method(ParseState& state, std::string_view text) {
  // A method is a token (RFC 9110 section 9.1), as a header name is.
  if (text.empty() || !validate_header_name(text)) {
    return usage_error("-X '" + std::string(text) + "': a method is one token, like PUT or DELETE");
  }
  state.options.method = std::string(text);
  return {};
}

Result<void> apply_max_redirs(ParseState& state, std::string_view text) {
  int count = 0;
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), count);
  if (ec != std::errc() || end != text.data() + text.size() || count < -1) {
    return usage_error("--max-redirs: '" + std::string(text) +
                       "' is not a count (0 or more, -1 for no limit)");
  }
  state.options.max_redirects = count == -1 ? std::numeric_limits<int>::max() : count;
  return {};
}

Result<void> apply_write_out(ParseState& state, std::string_view text) {
  std::string format(text);
  if (!text.empty() && text.front() == '@') {
    Result<std::string> bytes = read_whole_file("-w", std::string(text.substr(1)));
    if (!bytes) return std::move(bytes).error();
    format = std::move(*bytes);
  }
  Result<WriteOutFormat> parsed = WriteOutFormat::parse(format);
  if (!parsed) return std::move(parsed).error();
  state.options.write_out = std::move(*parsed);
  return {};
}

const std::array<OptionSpec, 48> kOptions = {{
    {'\0', "http1.1", false, [](ParseState& s, std::string_view) -> Result<void> {
       s.options.version = VersionPolicy::http1_only;
       return {};
     }},
    {'\0', "http2", false, [](ParseState& s, std::string_view) -> Result<void> {
       s.options.version = VersionPolicy::http2;
       return {};
     }},
    {'\0', "http2-prior-knowledge", false, [](ParseState& s, std::string_view) -> Result<void> {
       s.options.version = VersionPolicy::http2_prior_knowledge;
       return {};
     }},
    {'\0', "http3", false, [](ParseState& s, std::string_view) -> Result<void> {
       s.options.version = VersionPolicy::http3;
       return {};
     }},
    {'\0', "http3-only", false, [](ParseState& s, std::string_view) -> Result<void> {
       s.options.version = VersionPolicy::http3_only;
       return {};
     }},
    {'H', "header", true, apply_header_or_file},
    {'X', "request", true, apply_method},
    {'d', "data", true, [](ParseState& s, std::string_view v) { return add_data(s, "-d", v); }},
    {'\0', "data-binary", true, [](ParseState& s, std::string_view v) {
       return add_binary_data(s, "--data-binary", v, false);
     }},
    {'\0', "compressed", false, [](ParseState& s, std::string_view) -> Result<void> {
       s.options.compressed = true;
       return {};
     }},
    {'L', "location", false, [](ParseState& s, std::string_view) -> Result<void> {
       s.options.follow_redirects = true;
       return {};
     }},
    {'k', "insecure", false, [](ParseState& s, std::string_view) -> Result<void> {
       s.options.insecure = true;
       return {};
     }},
    {'\0', "cacert", true, [](ParseState& s, std::string_view v) -> Result<void> {
       s.options.ca_file = std::string(v);
       return {};
     }},
    {'x', "proxy", true, [](ParseState& s, std::string_view v) -> Result<void> {
       s.options.proxy = std::string(v);
       return {};
     }},
    {'\0', "socks5", true, [](ParseState& s, std::string_view v) -> Result<void> {
       s.options.proxy = "socks5://" + std::string(v);
       return {};
     }},
    {'\0', "socks5-hostname", true, [](ParseState& s, std::string_view v) -> Result<void> {
       s.options.proxy = "socks5h://" + std::string(v);
       return {};
     }},
    {'\0', "proxy-user", true, [](ParseState& s, std::string_view v) -> Result<void> {
       s.options.proxy_user = std::string(v);
       return {};
     }},
    {'\0', "proxy-cacert", true, [](ParseState& s, std::string_view v) -> Result<void> {
       s.options.proxy_ca_file = std::string(v);
       return {};
     }},
    {'\0', "proxy-insecure", false, [](ParseState& s, std::string_view) -> Result<void> {
       s.options.proxy_insecure = true;
       return {};
     }},
    {'\0', "noproxy", true, [](ParseState& s, std::string_view v) -> Result<void> {
       s.options.no_proxy = std::string(v);
       return {};
     }},
    {'p', "proxytunnel", false, [](ParseState& s, std::string_view) -> Result<void> {
       s.options.proxy_tunnel = true;
       return {};
     }},
    {'4', "ipv4", false, [](ParseState& s, std::string_view) -> Result<void> {
       s.options.ip_version = IpVersion::v4_only;
       return {};
     }},
    {'6', "ipv6", false, [](ParseState& s, std::string_view) -> Result<void> {
       s.options.ip_version = IpVersion::v6_only;
       return {};
     }},
    {'\0', "resolve", true, [](ParseState& s, std::string_view v) -> Result<void> {
       s.options.resolve.emplace_back(v);
       return {};
     }},
    {'\0', "connect-to", true, [](ParseState& s, std::string_view v) -> Result<void> {
       s.options.connect_to.emplace_back(v);
       return {};
     }},
    {'\0', "unix-socket", true, [](ParseState& s, std::string_view v) -> Result<void> {
       s.options.unix_socket = std::string(v);
       return {};
     }},
    {'\0', "dns-servers", true, [](ParseState& s, std::string_view v) -> Result<void> {
       s.options.dns_servers = std::string(v);
       return {};
     }},
    {'\0', "happy-eyeballs-timeout-ms", true, [](ParseState& s, std::string_view v) -> Result<void> {
       unsigned ms = 0;
       auto [end, ec] = std::from_chars(v.data(), v.data() + v.size(), ms);
       if (ec != std::errc() || end != v.data() + v.size()) {
         return Error(ErrorCode::usage, "--happy-eyeballs-timeout-ms: '" + std::string(v) +
                                            "' is not a number of milliseconds");
       }
       s.options.happy_eyeballs_delay = std::chrono::milliseconds(ms);
       return {};
     }},
    {'\0', "interface", true, [](ParseState& s, std::string_view v) -> Result<void> {
       if (v.empty()) return Error(ErrorCode::usage, "--interface: give an interface name or address");
       s.options.interface = std::string(v);
       return {};
     }},
    {'\0', "local-port", true, [](ParseState& s, std::string_view v) -> Result<void> {
       // "N" or "N-M", as curl takes it.
       const std::size_t dash = v.find('-');
       const std::string_view low = v.substr(0, dash);
       const std::string_view high = dash == std::string_view::npos ? low : v.substr(dash + 1);
       unsigned first = 0, last = 0;
       for (const auto& [part, value] : {std::pair{low, &first}, std::pair{high, &last}}) {
         auto [end, ec] = std::from_chars(part.data(), part.data() + part.size(), *value);
         if (ec != std::errc() || end != part.data() + part.size() || *value < 1 || *value > 65535) {
           return Error(ErrorCode::usage, "--local-port: '" + std::string(part) +
                                              "' is not a port number (1-65535)");
         }
       }
       if (last < first) {
         return Error(ErrorCode::usage,
                      "--local-port: the range " + std::string(v) + " ends before it starts");
       }
       s.options.local_port = static_cast<std::uint16_t>(first);
       s.options.local_port_range = static_cast<std::uint16_t>(last - first + 1);
       return {};
     }},
    {'\0', "max-redirs", true, apply_max_redirs},
    {'\0', "connect-timeout", true, [](ParseState& s, std::string_view v) -> Result<void> {
       Result<std::chrono::milliseconds> timeout = parse_seconds("--connect-timeout", v);
       if (!timeout) return std::move(timeout).error();
       s.options.connect_timeout = *timeout;
       return {};
     }},
    {'m', "max-time", true, [](ParseState& s, std::string_view v) -> Result<void> {
       Result<std::chrono::milliseconds> timeout = parse_seconds("-m", v);
       if (!timeout) return std::move(timeout).error();
       s.options.max_time = *timeout;
       return {};
     }},
    {'s', "silent", false, [](ParseState& s, std::string_view) -> Result<void> {
       s.options.silent = true;
       return {};
     }},
    {'S', "show-error", false, [](ParseState& s, std::string_view) -> Result<void> {
       s.options.show_error = true;
       return {};
     }},
    {'v', "verbose", false, [](ParseState& s, std::string_view) -> Result<void> {
       s.options.verbose = true;
       return {};
     }},
    {'\0', "trace", true, [](ParseState& s, std::string_view v) -> Result<void> {
       s.options.trace_path = std::string(v);
       s.options.trace_ascii = false;
       return {};
     }},
    {'\0', "trace-ascii", true, [](ParseState& s, std::string_view v) -> Result<void> {
       s.options.trace_path = std::string(v);
       s.options.trace_ascii = true;
       return {};
     }},
    {'\0', "trace-time", false, [](ParseState& s, std::string_view) -> Result<void> {
       s.options.trace_time = true;
       return {};
     }},
    {'f', "fail", false, [](ParseState& s, std::string_view) -> Result<void> {
       s.options.fail_on_http_error = true;
       return {};
     }},
    {'o', "output", true, [](ParseState& s, std::string_view v) -> Result<void> {
       if (v.empty()) return usage_error("-o: the file name is empty");
       // The first -o is the one a single URL writes to; all are paired with the
       // URL arguments after parsing (url_glob_options.cpp).
       if (s.options.output_arguments.empty()) s.options.output_path = std::string(v);
       s.options.output_arguments.emplace_back(v);
       return {};
     }},
    {'i', "include", false, [](ParseState& s, std::string_view) -> Result<void> {
       s.options.include_head = true;
       return {};
     }},
    {'I', "head", false, [](ParseState& s, std::string_view) -> Result<void> {
       s.options.head_only = true;
       return {};
     }},
    {'D', "dump-header", true, [](ParseState& s, std::string_view v) -> Result<void> {
       if (v.empty()) return usage_error("-D: the file name is empty (use - for stdout)");
       s.options.dump_header_path = std::string(v);
       return {};
     }},
    {'w', "write-out", true, apply_write_out},
    {'A', "user-agent", true, [](ParseState& s, std::string_view v) -> Result<void> {
       if (Result<void> valid = validate_header_value(v); !valid) {
         return usage_error("-A: " + valid.error().message());
       }
       s.options.user_agent = std::string(v);
       return {};
     }},
    {'h', "help", false, [](ParseState& s, std::string_view) -> Result<void> {
       s.options.show_help = true;
       return {};
     }},
    {'V', "version", false, [](ParseState& s, std::string_view) -> Result<void> {
       s.options.show_version = true;
       return {};
     }},
}};

}  // namespace

std::span<const OptionSpec> transfer_option_specs() { return kOptions; }

}  // namespace sluice::cli
