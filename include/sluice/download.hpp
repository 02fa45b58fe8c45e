#pragma once
/// @file
/// sluice::download(): a URL into a file, the way a downloader does it: resumable,
/// optionally as N byte ranges fetched at once, rate-limited through backpressure,
/// retried from the bytes already written, verified. Bytes reach the disk through
/// the Client's file pool, never on the HTTP thread.
///
/// While a download is incomplete its file has a control file beside it,
/// PATH.sluice (the URL, the size, the validator and how far each range got). A
/// file without one is complete: every byte arrived (its size matches) and, when a
/// checksum was given, it matched. A failed or killed download keeps both, and
/// `resume` continues it.

#include <atomic>
#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "sluice/client.hpp"
#include "sluice/error.hpp"
#include "sluice/export.h"
#include "sluice/request.hpp"
#include "sluice/response.hpp"
#include "sluice/retry.hpp"
#include "sluice/url.hpp"

namespace sluice {

/// Where the file goes.
struct DownloadTarget {
  /// The file to write. Empty: `directory` joined with a name chosen from the
  /// response (see file_name_for()).
  std::string path;
  /// For a chosen name; empty means the current directory.
  std::string directory;
  /// With an empty path, prefer the name in Content-Disposition (curl's -J).
  bool name_from_content_disposition = false;
  /// Create missing directories of the path (curl's --create-dirs).
  bool create_directories = false;
  /// Never overwrite an existing file (curl's --no-clobber): the download goes to
  /// the first of PATH.1 ... PATH.100 that does not exist, and fails (category io)
  /// when all do. DownloadOptions::resume and resume_from continue PATH instead.
  bool keep_existing = false;
  /// With name_from_content_disposition, a file of the name the server chose is
  /// overwritten only when this is set (curl's --clobber); otherwise the download
  /// fails (category io) before writing, as curl's -J does. A name taken from the
  /// URL is overwritten as with a path.
  bool overwrite_server_named_file = false;
};

/// A snapshot of a download in flight, for progress displays.
struct DownloadProgress {
  std::string path;              ///< empty until the name is chosen
  std::uint64_t bytes_done = 0;  ///< bytes of the file on disk (all ranges, resumed ones included)
  std::optional<std::uint64_t> total;  ///< the file's size, once known
  std::uint64_t resumed_from = 0;      ///< bytes that were on disk when this run began
  double bytes_per_second = 0;         ///< over the last few seconds
  unsigned active_ranges = 0;          ///< ranges being fetched now
  bool finished = false;               ///< the last report (success or failure)
};

class RateLimiter;  // internal: the token bucket a SharedRateLimit holds

/// One rate for several downloads at once (aria2c's --max-overall-download-limit; the
/// command's --limit-rate-total): each takes its bytes from this budget, so together
/// they read at most `bytes_per_second`, besides each one's own
/// DownloadOptions::max_bytes_per_second. Enforced by reading slower, so the
/// transports hold the rest back. Any thread: share one (DownloadOptions::
/// shared_rate_limit) among downloads running on many.
class SLUICE_API SharedRateLimit {
 public:
  /// bytes_per_second must be at least 1.
  explicit SharedRateLimit(std::uint64_t bytes_per_second);
  ~SharedRateLimit();
  SharedRateLimit(const SharedRateLimit&) = delete;
  SharedRateLimit& operator=(const SharedRateLimit&) = delete;
  std::uint64_t bytes_per_second() const noexcept { return bytes_per_second_; }

 private:
  friend struct SharedRateLimitAccess;
  std::uint64_t bytes_per_second_;
  std::unique_ptr<RateLimiter> limiter_;
};

struct DownloadOptions {
  /// The GET to make: URL, headers, version, timeouts, redirects, mark. Its method
  /// must be GET and it must have no body. The ranges go to the URL after its
  /// redirects, with the request's credentials (auth, Authorization, Cookie, the URL's
  /// user:password) only when that is the URL's origin or
  /// redirects.credentials_to_other_origins is set.
  Request request;
  DownloadTarget target;
  /// Continue a partial file (curl's -C -): from its control file when there is
  /// one, else from the file's size. A server that ignores the range, or whose
  /// validator (ETag, Last-Modified) changed since, restarts the file from byte 0,
  /// and the result says so.
  bool resume = false;
  /// Continue at this byte (curl's -C OFFSET): the file keeps its first
  /// `resume_from` bytes and the rest of the resource is fetched from there, as from
  /// a file of that size; it fails (category usage) when the file holds fewer.
  /// Ignored when `resume` is set.
  std::optional<std::uint64_t> resume_from;
  /// Only these bytes of the resource (curl's -r FIRST-LAST or FIRST-): the file holds
  /// them from its byte 0, and its control file records the range, so `resume`
  /// continues it. The server must answer ranges (206). Not with `sha256`.
  struct ByteRange {
    std::uint64_t first = 0;
    std::optional<std::uint64_t> last;  ///< inclusive; none: to the end
  };
  std::optional<ByteRange> range;
  /// Fetch the file as this many byte ranges at once (1 to 16): N connections over
  /// HTTP/1.1, N streams over HTTP/2 and HTTP/3. Needs a server that answers ranges
  /// and a known size; otherwise one range, and the result says why.
  unsigned ranges = 1;
  /// Other URLs of the same file (curl has none; aria2c takes several URIs): ranges
  /// are spread over the URL and these, a range that finishes early takes more work
  /// for its own source. A mirror that answers with another size or validator (ETag,
  /// Last-Modified) than the URL's is dropped with a note at once, one that fails
  /// otherwise (refused, cut, 503) once its `retry` retries are used; its range
  /// continues elsewhere. A range that fails on the URL after its
  /// retries there moves to a live mirror (noted), so the download fails only when
  /// every source has failed a range. Each source gets a range: `ranges` is raised to
  /// 1 + mirrors (at most 16). Credentials of the request (auth, Authorization,
  /// Cookie) go to a mirror only when it has the URL's origin. http and https only.
  std::vector<std::string> mirrors;
  /// Ranges smaller than this are not split further.
  std::uint64_t min_range_size = 1u << 20;
  /// Lowercase hex SHA-256 the complete file must have (--checksum sha256=HEX).
  std::optional<std::string> sha256;
  /// Bytes per second over all ranges; 0 = no limit. Enforced by reading slower,
  /// so the transports hold the rest back.
  std::uint64_t max_bytes_per_second = 0;
  /// A rate this download shares with others (see SharedRateLimit); null: none.
  std::shared_ptr<SharedRateLimit> shared_rate_limit;
  /// Retries on a transient failure (connect, timeout, protocol, 408, 429, 5xx),
  /// each resuming from the bytes already written (sluice/retry.hpp).
  RetryPolicy retry;
  /// How often on_progress is called while bytes arrive (and once at the end).
  std::chrono::milliseconds progress_interval{200};
  /// Called on the thread that called download().
  std::function<void(const DownloadProgress&)> on_progress;
  /// When set, storing true (from any thread, a signal handler included) stops the
  /// download within a fraction of a second: it fails with category cancelled and
  /// keeps the file and its control file, so `resume` continues it. It must outlive
  /// the download() call.
  const std::atomic<bool>* cancel = nullptr;
};

/// What one source of a download did (DownloadResult::sources).
struct DownloadSourceReport {
  std::string url;
  std::uint64_t bytes = 0;  ///< body bytes written to the file from this source
  std::string dropped;      ///< why a mirror was dropped; empty when it served to the end
};

struct DownloadResult {
  std::string path;
  std::uint64_t size = 0;          ///< bytes in the complete file
  std::uint64_t transferred = 0;   ///< body bytes received by this run
  std::uint64_t resumed_from = 0;  ///< bytes already on disk that were kept
  unsigned ranges = 1;             ///< ranges fetched at once
  int retries = 0;                 ///< retries used
  /// Times a range that finished early took the second half of the largest rest of
  /// another (work stealing); each added a range.
  unsigned steals = 0;
  /// With mirrors: the URL (first) and each mirror, in the order given. Empty without.
  std::vector<DownloadSourceReport> sources;
  double seconds = 0;
  /// What a person should know: "the server ignored the range; restarted from byte
  /// 0", "the server does not answer ranges: one connection", ...
  std::vector<std::string> notes;
  /// The first response, the one that decided the plan (200 or 206; the ranges after
  /// it are more of the same): its status, version, URL after redirects, fields
  /// (Last-Modified) and connection, what curl's -w variables read in download mode.
  /// 304, or 412, when the request's own If-Modified-Since / If-None-Match (or
  /// If-Unmodified-Since) condition held it back: then nothing was written and the
  /// file is as it was.
  ResponseHead first_response;
};

/// Downloads on the calling thread (it blocks; run several on several threads for
/// parallel downloads). Errors carry the usual categories; a checksum mismatch is
/// category protocol and leaves the bytes in PATH.sluice-bad, never at PATH.
SLUICE_API Result<DownloadResult> download(Client& client, DownloadOptions options);

/// The file name a download of `url` with response `headers` would take: the
/// Content-Disposition filename (filename* preferred) when `use_content_disposition`,
/// else the URL path's last segment, else "index.html". Only a final path component
/// is used; a name that is empty, ".", "..", starts with a dot or contains control
/// characters falls back to the next source.
SLUICE_API std::string file_name_for(const Url& url, const Headers& headers,
                                     bool use_content_disposition);

/// The control file an incomplete download to `path` keeps beside it: PATH.sluice.
/// While it exists the file is incomplete, and DownloadOptions::resume continues it.
SLUICE_API std::string control_file_path(std::string_view path);

}  // namespace sluice
