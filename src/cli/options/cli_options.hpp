#pragma once
// The `sluice` command line, parsed into plain data before anything touches the
// network. Parsing validates what it can (headers, numbers, -w variables, readable
// data files) so that a typo fails with exit 2 and a message naming the option.
// Ownership: CliOptions is a value owned by main's thread.

#include <chrono>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "cli/options/cookie_options.hpp"
#include "cli/options/syntax/byte_range.hpp"
#include "cli/options/syntax/protocol_list.hpp"
#include "cli/options/syntax/time_condition.hpp"
#include "cli/output/write_out.hpp"
#include "sluice/client.hpp"
#include "sluice/error.hpp"
#include "sluice/headers.hpp"
#include "sluice/request.hpp"
#include "sluice/retry.hpp"

namespace sluice::cli {

/// --progress=MODE as given; automatic picks bar on a terminal, none elsewhere.
enum class ProgressChoice { automatic, bar, line, none };

/// The TLS options besides -k and --cacert (tls_options.cpp); curl's names.
struct TlsCliOptions {
  std::string cert;           ///< --cert / -E FILE (PEM, may hold the key)
  std::string key;            ///< --key FILE
  std::string pass;           ///< --pass PHRASE
  std::string capath;         ///< --capath DIR
  bool tls13_min = false;     ///< --tlsv1.3 (--tlsv1.2 is the floor anyway)
  bool tls12_max = false;     ///< --tls-max 1.2
  std::string ciphers;        ///< --ciphers LIST (TLS 1.2)
  std::string tls13_ciphers;  ///< --tls13-ciphers LIST
  std::string pinned_pubkey;  ///< --pinnedpubkey sha256//...;... or FILE
  bool no_sessionid = false;  ///< --no-sessionid
  bool early_data = false;    ///< --tls-earlydata (0-RTT over HTTP/3)
};

/// One -F / --form-string part (body_options.cpp).
struct FormPart {
  std::string name;
  std::string value;     ///< a field's text (-F name=value, -F name=<FILE read in)
  std::string file;      ///< -F name=@FILE: uploaded from disk, streamed
  std::string filename;  ///< ;filename= (for a file: its last path component by default)
  std::string type;      ///< ;type=
};

/// The authentication options (auth_options.cpp), as given; CliOptions::auth is what
/// they make together, whatever their order.
struct AuthCliOptions {
  enum class Method { basic, digest, any, aws_sigv4 };
  Method method = Method::basic;      ///< --basic, --digest, --anyauth, --aws-sigv4 (the last wins)
  std::string aws_sigv4;              ///< --aws-sigv4 "provider1[:provider2[:region[:service]]]"
  std::optional<std::string> user;    ///< -u USER:PASSWORD's user
  std::string password;               ///< and password
  std::optional<std::string> bearer;  ///< --oauth2-bearer TOKEN (the later of it and -u wins)
  bool netrc = false;                 ///< -n: ~/.netrc, required
  bool netrc_optional = false;        ///< --netrc-optional
  std::string netrc_file;             ///< --netrc-file FILE (required unless --netrc-optional)

  /// ClientOptions::netrc for these flags.
  NetrcMode netrc_mode() const {
    if (netrc_optional) return NetrcMode::optional;
    return netrc || !netrc_file.empty() ? NetrcMode::required : NetrcMode::off;
  }
};

/// The downloader's options (download_options.cpp).
struct DownloadCliOptions {
  bool remote_name = false;            ///< -O: name each file from its URL
  bool remote_header_name = false;     ///< -J: prefer Content-Disposition's name (with -O)
  std::string output_dir;              ///< --output-dir
  bool create_dirs = false;            ///< --create-dirs
  std::vector<std::string> url_lists;  ///< --input-file FILE ("-": stdin), one URL per line
  bool parallel = false;               ///< -Z
  unsigned parallel_max = 5;           ///< --parallel-max
  bool resume = false;                 ///< -C - (either mode: range_options.cpp)
  unsigned split = 1;                  ///< --split N
  std::optional<std::string> sha256;   ///< --checksum sha256=HEX (lowercase)
  std::vector<std::string> mirrors;    ///< --mirror URL, repeated: other URLs of the one file
  unsigned max_host_connections = 6;   ///< --max-host-connections
  ProgressChoice progress = ProgressChoice::automatic;  ///< --progress=MODE, --no-progress
  bool summary_json = false;  ///< --json-summary: one JSON object per download on stdout
  /// Any option above that only the downloader has: such a run downloads to files.
  bool asked = false;
};

struct CliOptions {
  bool show_help = false;
  std::string help_category;  ///< the word after -h/--help: "all", "http", ... (usage_text.hpp)
  bool show_version = false;

  /// The URLs in command-line order (and, after load_url_lists(), those of --input-file).
  std::vector<std::string> urls;
  std::string method;       ///< -X; empty: GET, or POST when there is data
  Authentication auth;      ///< -u, --oauth2-bearer, --digest, --anyauth (from auth_cli)
  AuthCliOptions auth_cli;  ///< the authentication options as given

  /// -H fields in command-line order, already validated.
  std::vector<Header> headers;
  /// -H "Name:" (nothing after the colon): headers the command would add itself
  /// (Content-Type for -d, Accept, User-Agent) are left out, as in curl.
  std::vector<std::string> removed_headers;
  std::optional<std::string> user_agent;  ///< -A
  std::optional<std::string> referer;     ///< -e: the first request's Referer
  bool referer_auto = false;              ///< -e's ";auto": each hop's Referer is the URL before

  /// -d / --data-binary bodies joined with '&' (as curl does); read into memory.
  std::optional<std::string> data;
  /// --data-binary @FILE given alone: the body streams from the file pool.
  std::string data_file;
  /// -F / --form-string in command-line order: a multipart/form-data POST.
  std::vector<FormPart> form;
  bool data_in_query = false;  ///< -G: the data goes into each URL's query; GET
  std::string upload_file;     ///< -T FILE ("-": stdin): PUT its bytes, streamed
  bool json = false;           ///< --json: JSON's Content-Type and Accept headers

  VersionPolicy version =
      VersionPolicy::automatic;  ///< --http1.1, --http2, --http2-prior-knowledge
  bool compressed = false;
  bool follow_redirects = false;
  int max_redirects = 50;          ///< curl's default; -1 on the command line means no limit
  bool redirect_to_http = false;   ///< --proto-redir allows http: an https URL may redirect to http
  ProtocolSet protocols;           ///< --proto: what URLs and redirects may use
  ProtocolSet redirect_protocols;  ///< --proto-redir: what redirects may lead to
  bool keep_post_on_301 = false;   ///< --post301: a POST stays a POST on a 301
  bool keep_post_on_302 = false;   ///< --post302
  bool keep_post_on_303 = false;   ///< --post303
  bool credentials_to_other_origins = false;  ///< --location-trusted
  bool insecure = false;
  std::string ca_file;
  TlsCliOptions tls;         ///< --cert, --key, --pass, --capath, --tlsv1.x, --ciphers, ...
  CookieCliOptions cookies;  ///< -b, -c, -j (cookie_options.cpp)
  /// --alt-svc, --hsts, --ssl-sessions: the library's state files (state_options.cpp).
  StateFileOptions state_files;
  /// -x/--proxy; unset: the environment's, as curl ("" turns every proxy off).
  std::optional<std::string> proxy;
  std::string proxy_user;                 ///< --proxy-user USER:PASSWORD
  std::string proxy_ca_file;              ///< --proxy-cacert FILE
  bool proxy_insecure = false;            ///< --proxy-insecure
  std::optional<std::string> no_proxy;    ///< --noproxy LIST (over NO_PROXY)
  bool proxy_tunnel = false;              ///< -p/--proxytunnel
  IpVersion ip_version = IpVersion::any;  ///< -4 / -6
  std::vector<std::string> resolve;       ///< --resolve HOST:PORT:ADDR[,ADDR] (repeatable)
  std::vector<std::string> connect_to;    ///< --connect-to H:P:H2:P2 (repeatable)
  std::string unix_socket;                ///< --unix-socket PATH
  std::string dns_servers;                ///< --dns-servers LIST
  std::string interface;                  ///< --interface NAME|ADDRESS
  std::uint16_t local_port = 0;           ///< --local-port N[-M]: the first port
  std::uint16_t local_port_range = 1;     ///< and how many
  std::optional<std::chrono::milliseconds> happy_eyeballs_delay;  ///< --happy-eyeballs-timeout-ms
  std::optional<std::chrono::milliseconds> connect_timeout;       ///< unset: library default
  std::chrono::milliseconds max_time{0};                          ///< 0: no limit
  /// --retry N, --retry-delay, --retry-all-errors, --retry-max-time: for a fetch and
  /// for each download.
  RetryPolicy retry;
  std::uint64_t limit_rate = 0;                    ///< --limit-rate, bytes per second (0: none)
  std::optional<std::uint64_t> speed_limit;        ///< -Y/--speed-limit BYTES a second
  std::optional<std::chrono::seconds> speed_time;  ///< -y/--speed-time SECONDS
  std::uint64_t limit_rate_total = 0;  ///< --limit-rate-total: every transfer together (0: none)

  bool silent = false;
  bool show_error = false;
  bool verbose = false;
  std::string trace_path;    ///< --trace/--trace-ascii FILE ("-": stdout); empty: none
  bool trace_ascii = false;  ///< --trace-ascii: ASCII only, not the hex dump
  bool trace_time = false;   ///< --trace-time: each trace record starts with the time
  bool fail_on_http_error = false;
  bool fail_with_body = false;     ///< --fail-with-body: exit 22 on >= 400, body still written
  bool remove_on_error = false;    ///< --remove-on-error: a failed transfer's -o file is removed
  std::uint64_t max_filesize = 0;  ///< --max-filesize: larger bodies fail with exit 63 (0: none)
  std::string etag_save;           ///< --etag-save FILE: the response's ETag is written there
  std::string etag_compare;        ///< --etag-compare FILE: If-None-Match with the ETag in it
  std::optional<TimeCondition> time_cond;  ///< -z: If-(Un)Modified-Since; a 304/412 writes nothing
  bool remote_time = false;                ///< -R: the -o file gets the response's Last-Modified

  /// -C OFFSET: the output continues at this byte of the resource (-C - is
  /// download.resume); range_options.cpp.
  std::optional<std::uint64_t> continue_at;
  std::optional<ByteRanges> range;  ///< -r RANGE, checked; sent as "Range: bytes=RANGE"
  bool no_clobber = false;          ///< --no-clobber: an existing file is kept; FILE.1 ... .100
  bool clobber = false;             ///< --clobber: -J may overwrite a file of the server's name
  std::string output_path;          ///< empty or "-": stdout
  /// Every -o in the order given: the n-th names the n-th URL argument's file(s), as
  /// in curl (url_glob_options.cpp pairs them).
  std::vector<std::string> output_arguments;
  /// Set when the -o options name several files: one per URL of urls, in their order
  /// (several -o, or one whose URL globbed into several, with #N filled in for each);
  /// otherwise empty.
  std::vector<std::string> output_paths;
  bool globoff = false;          ///< -g: {} and [] in URLs are text, not patterns
  bool include_head = false;     ///< -i: the response head before the body in the output
  bool head_only = false;        ///< -I: a HEAD request; its head is the output
  std::string dump_header_path;  ///< -D FILE: the response head to FILE ("-": stdout)
  std::optional<WriteOutFormat> write_out;

  DownloadCliOptions download;

  /// Errors go to stderr unless -s was given without -S.
  bool errors_visible() const noexcept { return !silent || show_error; }
  bool writes_to_stdout() const noexcept { return output_path.empty() || output_path == "-"; }
  /// Whether the request carries a body (-d and friends, -F, -T).
  bool has_body() const noexcept {
    return data.has_value() || !data_file.empty() || !form.empty() || !upload_file.empty();
  }
};

/// Parses argv[1..argc). Errors: category usage (exit 2) for a bad option or value,
/// category io (exit 26) for an unreadable -d @FILE, --data-binary @FILE or -w @FILE.
/// A missing URL is not an error here (--help and --version need none).
Result<CliOptions> parse_command_line(int argc, const char* const* argv);

/// The --version text: version, protocols, features.
std::string version_text();

}  // namespace sluice::cli
