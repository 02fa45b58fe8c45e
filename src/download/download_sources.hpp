#pragma once
// DownloadSources: where a download's ranges come from: the primary URL (source 0,
// after its redirects) and the mirrors the caller named, which serve the same file.
// A mirror that fails (at once when it is at fault, after its retries when the
// failure was transient), or that answers with another size or validator, is dropped
// for the rest of the download and its range moves on to the next live source. The
// primary is never dropped for other ranges: a range that fails on it moves to a live
// mirror it has not left yet (noted), and fails only when no source is left to it.
//
// Ownership: owned by the download on the calling thread; range threads call every
// member concurrently, so the mutable state is under mu_.

#include <cstddef>
#include <cstdint>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "sluice/download.hpp"
#include "sluice/request.hpp"

namespace sluice {

class DownloadSources {
 public:
  /// `primary` is the GET every range copies (its URL after redirects); each mirror
  /// gets a copy with its own URL. The primary and each mirror go without
  /// credentials (auth, Authorization, Cookie) when their origin is not the origin
  /// of `asked_url`, the URL the caller gave: they were meant for that server only,
  /// as across a redirect (a redirect to a CDN must not take them along), unless the
  /// primary's redirect was followed with RedirectPolicy::credentials_to_other_origins.
  /// The user:password in `asked_url` go wherever the others go, in the source's URL
  /// (one without its own), so Client::send chooses between them, the request's own
  /// and the netrc file's as it chose for the first request.
  DownloadSources(const Request& primary, const std::string& asked_url,
                  const std::vector<std::string>& mirrors);

  std::size_t count() const noexcept { return sources_.size(); }
  static bool is_mirror(std::size_t source) noexcept { return source != 0; }
  /// The request a range asks `source` with (Range and If-Range still to add).
  Request request_for(std::size_t source) const;
  /// The source's URL without credentials, for messages and reports.
  const std::string& url(std::size_t source) const { return sources_[source].shown_url; }

  /// `source` while it is live, else the next live source after it (wrapping).
  std::size_t live_from(std::size_t source) const;
  /// Drops a mirror (the first reason given is kept); returns the live source to use
  /// next. The primary is never dropped.
  std::size_t drop(std::size_t source, std::string why);
  /// The next live source after `from` (wrapping) that a range has not left
  /// (`left[source]`, sized count()); nullopt when every source is left or dropped.
  std::optional<std::size_t> next_for_range(std::size_t from, const std::vector<bool>& left) const;
  /// Records that a range left the primary for a mirror, and why (a note).
  void note_move(std::string text);
  /// The moves noted, in order.
  std::vector<std::string> moves() const;
  /// Body bytes a range wrote from `source`.
  void count_written(std::size_t source, std::uint64_t bytes);

  /// What each mirror did: its bytes, and why it was dropped if it was.
  std::vector<DownloadSourceReport> reports() const;

 private:
  struct Source {
    Request request;
    std::string shown_url;      // request.url without a user:password
    std::uint64_t written = 0;  // guarded by mu_
    bool dropped = false;       // guarded by mu_
    std::string why;            // guarded by mu_
  };

  std::size_t live_from_locked(std::size_t source) const;  // mu_ held
  // The first source from `start` on (wrapping) that is not dropped and, with
  // `left`, not left by the range; mu_ held.
  std::optional<std::size_t> first_live_locked(std::size_t start,
                                               const std::vector<bool>* left) const;

  mutable std::mutex mu_;
  std::vector<std::string> moves_;  // guarded by mu_
  std::vector<Source> sources_;     // the vector itself never changes after construction
};

}  // namespace sluice
