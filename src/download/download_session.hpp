#pragma once
// DownloadSession: one call of sluice::download() from start to end: choosing the
// path, deciding from the disk and the first response where the file continues
// (fresh, from the file's size, from the control file) and how many ranges it takes,
// running the ranges, then verifying and presenting the file.
// Ownership: lives on the stack of download(), on the calling thread; its range
// threads are joined before run() returns, so everything they share outlives them.

#include <chrono>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "download/download_fetch.hpp"
#include "download/download_monitor.hpp"
#include "download/file/download_control.hpp"
#include "download/file/download_file.hpp"
#include "sluice/download.hpp"
#include "sluice/retry.hpp"

namespace sluice {

class DownloadSession {
 public:
  DownloadSession(Client& client, DownloadOptions options);
  Result<DownloadResult> run();

 private:
  /// Where the file continues from, judged from the disk before any request.
  struct Origin {
    enum class Kind { fresh, from_size, from_control } kind = Kind::fresh;
    std::uint64_t size = 0;  ///< from_size: bytes already in the file
    ControlFile control;     ///< from_control
  };
  /// What the first response means.
  /// not_modified: a 304 (or a 412 to If-Unmodified-Since) answered the request's
  /// own condition; the file is left exactly as it was.
  enum class Verdict { proceed, complete, restart, fail, not_modified };
  struct Decision {
    Verdict verdict = Verdict::fail;
    std::optional<AttemptFailure> failure;
  };

  // download.cpp
  Result<void> validate();
  Result<void> set_path(std::string path);
  /// Fails when the server named the file (Content-Disposition, -J) and one of that
  /// name exists that nothing asked to keep, resume or overwrite (curl's -J).
  Result<void> refuse_overwrite_of_server_name(const Headers& headers) const;
  Result<DownloadResult> run_steps();
  Result<void> prepare_file();
  Result<void> verify_and_present(std::uint64_t size);
  Result<void> check_sha256(const OutputFile& file, std::uint64_t size);
  void note(std::string text) { result_.notes.push_back(std::move(text)); }

  // download_start.cpp
  Result<Origin> find_origin();
  Result<Origin> origin_at_offset();
  Request first_request(const Origin& origin) const;
  /// The range's last byte as a Range field writes it ("" when open).
  std::string range_last() const;
  Result<Verdict> start();
  /// Waits for the first response, reporting progress meanwhile.
  Result<Response> wait_first(PendingResponse& pending);
  bool sleep_with_ticks(std::chrono::milliseconds wait);
  Decision decide(const Origin& origin, Response& response);
  Decision decide_fresh(Response& response, bool after_range_request);
  Decision decide_from_size(std::uint64_t size, Response& response);
  Decision decide_from_control(const ControlFile& control, Response& response);
  static bool is_complete(const Origin& origin);
  /// A range download's file that holds the whole range already: complete (or too
  /// long); std::nullopt when there is more to fetch.
  std::optional<Result<Verdict>> range_on_disk(const Origin& origin);
  /// Every range of the control file is done (a run stopped before verifying).
  Verdict decide_complete_control(const ControlFile& control);
  void proceed_with(std::vector<RangeSpec> plan, std::optional<std::uint64_t> total,
                    std::string validator, Response& response, std::size_t range);
  Decision restart(std::string why);
  static Decision fail_with(std::string message);
  /// Where the file ends in the resource, for a server's size `total`: the range's
  /// end when it is inside (a range download), else `total`.
  std::optional<std::uint64_t> end_for(std::optional<std::uint64_t> total) const;
  /// A range download's first answer: a 206 from the range's first byte.
  Decision decide_range(Response& response);

  // download_run.cpp
  Result<void> run_ranges();
  Result<void> run_on_threads(FetchShared& shared);
  RangeSlot* steal_work(FetchShared& shared);
  void report_sources(const DownloadSources& sources);

  Client& client_;
  DownloadOptions options_;
  DownloadResult result_;
  DownloadMonitor monitor_;
  std::chrono::steady_clock::time_point began_;
  std::string path_;          ///< empty until chosen
  std::string control_path_;  ///< empty for a stream
  /// path_ is a device, FIFO or socket (/dev/null, /dev/stdout): one range, written
  /// in order, no control file, no resume.
  bool stream_ = false;
  /// The resource's byte that is the file's byte 0: DownloadOptions::range's first.
  std::uint64_t origin_ = 0;

  // Decided by start():
  std::vector<RangeSpec> plan_;
  std::optional<std::uint64_t> total_;
  std::string validator_;
  std::optional<Response> first_;  ///< continues range first_range_
  std::size_t first_range_ = 0;
  bool truncate_ = false;  ///< the file starts over from byte 0
  // Set by run_ranges() when one range from byte 0 was hashed as it arrived.
  std::optional<std::string> running_digest_;
  std::uint64_t running_hashed_ = 0;
  std::optional<OutputFile> file_;
  std::vector<std::unique_ptr<RangeSlot>> slots_;  ///< the plan, while it runs and after
};

}  // namespace sluice
