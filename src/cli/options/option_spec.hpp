#pragma once
// The tables the command-line parser walks: one OptionSpec per option, applied to a
// ParseState. The transfer options live in cli_options.cpp, the others in a file per
// topic (tls_options.cpp, download_options.cpp, ...); all_option_tables() lists them.
// Ownership: ParseState is owned by parse_command_line's frame (main thread); the
// tables are constants.

#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "cli/options/cli_options.hpp"
#include "sluice/error.hpp"

namespace sluice::cli {

// One -d/--data-binary/--json value: bytes already in memory, or a file to stream.
struct DataItem {
  std::string bytes;
  std::string file;
  bool json = false;  // --json pieces are concatenated, not joined with '&'
};

// Parsing state: the options being filled and the data items joined at the end.
struct ParseState {
  CliOptions options;
  std::vector<DataItem> data;
  /// -K's file, set by the option and taken by the walker, which reads it and puts
  /// its options right after the -K (config_options.cpp).
  std::optional<std::string> config_to_read;
};

using Apply = Result<void> (*)(ParseState&, std::string_view value);

struct OptionSpec {
  char short_name;  // '\0' when the option has only a long name
  std::string_view long_name;
  bool takes_value;
  Apply apply;
};

inline Error usage_error(std::string message) {
  return Error(ErrorCategory::usage, std::move(message));
}

/// Every table the parser searches, in its search order (cli_options.cpp). The parser
/// and the man page's test (tests/unit/cli/man_page_test.cpp) walk this one list, so a
/// table added here is searched and held to man/sluice.1 at once.
std::vector<std::span<const OptionSpec>> all_option_tables();

/// -H, -X, -o, -L, -v, -s, --max-redirs, -w, ... (transfer_options.cpp).
std::span<const OptionSpec> transfer_option_specs();

/// --url, -e/--referer, -#, --no-progress-meter, -N, --http1.0 (request_options.cpp).
std::span<const OptionSpec> request_option_specs();

/// --proto, --proto-redir, --post301/302/303, --location-trusted (redirect_options.cpp).
std::span<const OptionSpec> redirect_option_specs();

/// --cert, --key, --pass, --capath, --tlsv1.2, --tls-max, --ciphers, ... (tls_options.cpp).
std::span<const OptionSpec> tls_option_specs();

/// -F, --form-string, --data-urlencode, --data-raw, -G, -T, --json (body_options.cpp).
std::span<const OptionSpec> body_option_specs();

/// -d's value: "@FILE" read with CR and LF removed, else the text. Errors name `option`.
Result<void> add_data(ParseState& state, std::string_view option, std::string_view text);
/// --data-binary's value: "@FILE" of a regular file streams, else bytes. Errors name `option`.
Result<void> add_binary_data(ParseState& state, std::string_view option, std::string_view text,
                             bool json);

/// After parsing: refuses body options that contradict each other (-F with -d, -T
/// with either, a body with -I) and applies -G, which moves the data into each URL.
Result<void> check_body_options(CliOptions& options);

/// -u, --oauth2-bearer, --basic, --digest, --anyauth, -n, --netrc-file,
/// --netrc-optional (auth_options.cpp).
std::span<const OptionSpec> auth_option_specs();

/// -b/--cookie, -c/--cookie-jar, -j/--junk-session-cookies (cookie_options.cpp).
std::span<const OptionSpec> cookie_option_specs();

/// -O, -J, -Z, -i, --split, --checksum, --limit-rate, --retry, ... (download_options.cpp).
std::span<const OptionSpec> download_option_specs();

/// -C/--continue-at, -r/--range, --no-clobber, --clobber (range_options.cpp).
std::span<const OptionSpec> range_option_specs();

/// Reads a whole file ("-" for stdin); errors have category io and name `option`.
Result<std::string> read_whole_file(std::string_view option, const std::string& path);

/// A byte count as curl writes it ("512", "500K", "2M", "1G": powers of 1024), from
/// 1 to 2^40 units; errors name `option` (download_options.cpp).
Result<std::uint64_t> parse_byte_count(std::string_view option, std::string_view text);

/// -f's relatives: --fail-with-body, --remove-on-error, --max-filesize, --etag-save,
/// --etag-compare, -z/--time-cond, -R/--remote-time (failure_options.cpp).
std::span<const OptionSpec> failure_option_specs();

/// -K/--config, -q/--disable (config_options.cpp).
std::span<const OptionSpec> config_option_specs();

/// --alt-svc, --hsts, --ssl-sessions (state_options.cpp).
std::span<const OptionSpec> state_option_specs();

/// --speed-limit, --speed-time, --limit-rate-total (speed_options.cpp).
std::span<const OptionSpec> speed_option_specs();
/// The Client's low-speed limit from -Y and -y, with curl's defaults for the one not given.
LowSpeedLimit low_speed_limit(const CliOptions& options);

/// -g/--globoff (url_glob_options.cpp).
std::span<const OptionSpec> url_glob_option_specs();

/// After parsing, unless -g: each URL becomes the URLs its glob stands for, and -o
/// with one URL argument becomes output_paths (or, for one URL, -o with #N filled
/// in). Errors (usage) name the URL and the position; nothing has run yet.
Result<void> expand_url_globs(CliOptions& options);

/// The URLs `url` stands for (itself alone with `globoff`); an error starts with
/// `where` ("--input-file urls.txt line 3: ").
Result<std::vector<std::string>> globbed_urls(bool globoff, std::string_view url,
                                              std::string_view where);

/// A number of seconds ("2.5"), rounded up to milliseconds; errors name `option`.
Result<std::chrono::milliseconds> parse_seconds(std::string_view option, std::string_view text);

}  // namespace sluice::cli
