#pragma once
// -w / --write-out: a format parsed once at startup (so an unknown %{variable} is a
// usage error before any transfer) and expanded after the transfer from a report.
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
  std::uint64_t size_download = 0;     ///< body bytes written to the output
  double time_total = 0.0;             ///< seconds from start to the end of the body
  int num_redirects = 0;
  int num_connects = 0;
  int num_retries = 0;        ///< --retry attempts made after the first
  std::string url_effective;  ///< the last URL requested
  std::string content_type;   ///< empty when the response had none
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

/// Fills what a response tells: its status, version, head, timing, addresses,
/// redirects, connects, effective URL (when set) and certificate check.
void report_response(TransferReport& report, const ResponseHead& response);

enum class WriteOutVariable {
  http_code,
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
  json,       ///< every variable above as one JSON object
  to_stdout,  ///< %{stdout}: what follows goes to stdout (the default)
  to_stderr,  ///< %{stderr}: what follows goes to stderr
};

/// A %header{name} in the format: that response field's value ("" when absent).
struct HeaderVariable {
  std::string name;
};

/// The expanded format, split by where each part goes (%{stdout}, %{stderr}).
struct WriteOutText {
  std::string out;
  std::string err;
};

class WriteOutFormat {
 public:
  /// Parses a format: %{name} variables, %header{name}, \n \t \r \\ escapes, "%%"
  /// for a percent. Error (usage) for an unknown variable or an unterminated %{.
  static Result<WriteOutFormat> parse(std::string_view format);

  WriteOutText expand(const TransferReport& report) const;
  /// Prints the expansion: its stdout part to stdout, its stderr part to stderr.
  Result<void> print(const TransferReport& report) const;

 private:
  using Piece = std::variant<std::string, WriteOutVariable, HeaderVariable>;
  std::vector<Piece> pieces_;
};

}  // namespace sluice::cli
