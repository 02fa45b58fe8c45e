// The authentication options of the `sluice` command, under curl's names and
// meanings: -u/--user, --oauth2-bearer, --basic, --digest, --anyauth, --aws-sigv4,
// -n/--netrc, --netrc-file, --netrc-optional. Each option records what it was given in
// CliOptions::auth_cli and then recomputes CliOptions::auth, so their order does not
// matter (`--digest -u a:b` and `-u a:b --digest` mean the same, as in curl). The
// netrc file itself is read by Client::create, which names it in its errors.
// Ownership: a constant table; applied on main's thread.

#include <array>

#include "cli/options/option_spec.hpp"

namespace sluice::cli {
namespace {

// Authentication from the options given so far.
void recompute(CliOptions& options) {
  const AuthCliOptions& given = options.auth_cli;
  if (given.bearer) {
    options.auth = Authentication::bearer(*given.bearer);
    return;
  }
  // Without -u, --digest and --anyauth still apply to credentials from the netrc
  // file or the URL (the library fills them in); --basic alone is the default.
  const std::string user = given.user.value_or("");
  const std::string password = given.user ? given.password : std::string();
  switch (given.method) {
    case AuthCliOptions::Method::basic:
      options.auth = given.user ? Authentication::basic(user, password) : Authentication{};
      return;
    case AuthCliOptions::Method::digest:
      options.auth = Authentication::digest(user, password);
      return;
    case AuthCliOptions::Method::any: options.auth = Authentication::any(user, password); return;
    case AuthCliOptions::Method::aws_sigv4:
      options.auth = Authentication::aws_sigv4(user, password, given.aws_sigv4);
      return;
  }
}

Result<void> apply_user(ParseState& s, std::string_view v) {
  const std::size_t colon = v.find(':');
  if (colon == std::string_view::npos) {
    return usage_error("-u: give USER:PASSWORD (sluice does not ask for a password)");
  }
  s.options.auth_cli.user = std::string(v.substr(0, colon));
  s.options.auth_cli.password = std::string(v.substr(colon + 1));
  s.options.auth_cli.bearer.reset();
  recompute(s.options);
  return {};
}

Result<void> apply_bearer(ParseState& s, std::string_view v) {
  s.options.auth_cli.bearer = std::string(v);
  s.options.auth_cli.user.reset();
  recompute(s.options);
  return {};
}

template <AuthCliOptions::Method method>
Result<void> apply_method(ParseState& s, std::string_view) {
  s.options.auth_cli.method = method;
  recompute(s.options);
  return {};
}

// curl's --aws-sigv4 PROVIDER1[:PROVIDER2[:REGION[:SERVICE]]]: the parts are
// checked against the host of each hop (the defaults come from it), so only an empty
// value is refused here.
Result<void> apply_aws_sigv4(ParseState& s, std::string_view v) {
  if (v.empty()) return usage_error("--aws-sigv4: give provider1[:provider2[:region[:service]]]");
  s.options.auth_cli.aws_sigv4 = std::string(v);
  s.options.auth_cli.method = AuthCliOptions::Method::aws_sigv4;
  recompute(s.options);
  return {};
}

const std::array<OptionSpec, 9> kAuthOptions = {{
    {'u', "user", true, apply_user},
    {'\0', "oauth2-bearer", true, apply_bearer},
    {'\0', "basic", false, apply_method<AuthCliOptions::Method::basic>},
    {'\0', "digest", false, apply_method<AuthCliOptions::Method::digest>},
    {'\0', "anyauth", false, apply_method<AuthCliOptions::Method::any>},
    {'\0', "aws-sigv4", true, apply_aws_sigv4},
    {'n', "netrc", false,
     [](ParseState& s, std::string_view) -> Result<void> {
       s.options.auth_cli.netrc = true;
       return {};
     }},
    {'\0', "netrc-optional", false,
     [](ParseState& s, std::string_view) -> Result<void> {
       s.options.auth_cli.netrc_optional = true;
       return {};
     }},
    {'\0', "netrc-file", true,
     [](ParseState& s, std::string_view v) -> Result<void> {
       if (v.empty()) return usage_error("--netrc-file: the file name is empty");
       s.options.auth_cli.netrc_file = std::string(v);
       return {};
     }},
}};

}  // namespace

std::span<const OptionSpec> auth_option_specs() { return kAuthOptions; }

}  // namespace sluice::cli
