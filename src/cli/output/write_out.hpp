#pragma once
// -w / --write-out: a format parsed once at startup (so a malformed one is a usage
// error before any transfer) and expanded after the transfer from a report. An
// unknown %{variable} is only a warning when the text is printed, as in curl.
// Ownership: plain values, owned by main's thread.

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "sluice/error.hpp"
#include "sluice/headers.hpp"
#include "sluice/response.hpp"

namespace sluice::cli {

/// What one transfer did, as the -w variables see it. Filled in even when the
/// transfer failed (then http_code may be 0 and error_message is set).
struct TransferReport {
  int http_code = 0;                   ///< 0 before a response arrived
  std::optional<HttpVersion> version;  ///< unset before a response arrived
  /// Body bytes written to the output. curl counts the bytes received, before any
  /// content decoding; the library reports no such figure, so with --compressed
  /// this is the decoded size.
  std::uint64_t size_download = 0;
  double time_total = 0.0;  ///< seconds from start to the end of the body
  int num_redirects = 0;
  int num_connects = 0;
  int num_retries = 0;             ///< --retry attempts made after the first
  std::string url;                 ///< the URL as given on the command line
  std::string url_effective;       ///< the last URL requested
  std::string method;              ///< the last request's method ("GET", "POST", ...)
  std::string filename_effective;  ///< -o's file; empty for stdout
  std::string content_type;        ///< empty when the response had none
  int exit_code = 0;
  std::string error_message;  ///< empty on success
  /// The response's steps (time_namelookup ... time_starttransfer, in seconds from
  /// timing.start) and address; unset before a response arrived.
  std::optional<ResponseTiming> timing;
  std::string remote_ip;
  int remote_port = 0;
  std::string local_ip;
  int local_port = 0;
  Headers headers;                ///< the last response's fields, for %header{name}
  std::uint64_t size_header = 0;  ///< bytes of the last response's head
  std::uint64_t size_upload = 0;  ///< request body bytes sent (of a body with a length)
  long ssl_verify_result = 0;     ///< Response::tls_verify_result: 0 or X509_V_ERR_*
};

/// Where a redirect response points, resolved against url_effective (curl's
/// %{redirect_url}): set for a 3xx with a Location the transfer did not follow.
std::string redirect_url_of(const TransferReport& report);

/// Fills what a response tells: its status, version, head, timing, addresses,
/// redirects, connects, effective URL (when set) and certificate check.
void report_response(TransferReport& report, const ResponseHead& response);

enum class WriteOutVariable {
  http_code,
  response_code,  ///< the same as http_code
  http_version,
  size_download,
  time_total,
  num_redirects,
  num_connects,
  url_effective,
  content_type,
  exitcode,
  errormsg,
  time_namelookup,
  time_connect,
  time_appconnect,
  time_pretransfer,
  time_starttransfer,
  remote_ip,
  remote_port,
  local_ip,
  local_port,
  num_retries,
  time_redirect,
  speed_download,
  speed_upload,
  size_header,
  size_upload,
  scheme,
  ssl_verify_result,
  url,
  redirect_url,
  filename_effective,
  method,
  num_headers,
  json,         ///< every variable above as one JSON object
  header_json,  ///< the last response's fields: {"name":["value",...],...}, names lowercased
  to_stdout,    ///< %{stdout}: what follows goes to stdout (the default)
  to_stderr,    ///< %{stderr}: what follows goes to stderr
  onerror,      ///< %{onerror}: the rest is printed only if the transfer failed
};

/// A %header{name} in the format: that response field's value ("" when absent).
struct HeaderVariable {
  std::string name;
};

/// A %{name} sluice does not know: printed as nothing, with a warning.
struct UnknownVariable {
  std::string name;
};

/// %output{FILE} or %output{>>FILE}: what follows goes to FILE, truncated or appended.
struct OutputFile {
  std::string path;
  bool append = false;
};

/// Where one part of the expansion goes.
struct WriteOutTarget {
  enum class Stream { out, err, file };
  Stream stream = Stream::out;
  OutputFile file;  ///< for Stream::file
};

/// The expanded format, in order, split where the target changes.
struct WriteOutText {
  struct Part {
    WriteOutTarget target;
    std::string text;
  };
  std::vector<Part> parts;
  std::vector<std::string> unknown_variables;  ///< names, in the order met

  /// All the text for stdout, or for stderr, joined (for tests).
  std::string out() const;
  std::string err() const;
};

class WriteOutFormat {
 public:
  /// Parses a format: %{name} variables, %header{name}, %output{FILE}, the escapes
  /// backslash-n, -t, -r and a doubled backslash, and "%%" for a percent. Error
  /// (usage) for an unterminated %{, %header{ or %output{; an unknown variable is
  /// kept, to be warned about when printed.
  static Result<WriteOutFormat> parse(std::string_view format);

  WriteOutText expand(const TransferReport& report) const;
  /// Prints the expansion, each part where it goes, after a warning line on stderr
  /// for each unknown variable. Error (io) when stdout or a file cannot be written.
  Result<void> print(const TransferReport& report) const;

 private:
  using Piece =
      std::variant<std::string, WriteOutVariable, HeaderVariable, UnknownVariable, OutputFile>;
  std::vector<Piece> pieces_;
};

}  // namespace sluice::cli
