#pragma once
// How a retried fetch continues after the body bytes it already wrote, so that
// `sluice --retry N URL > file` never writes a byte twice, even to a pipe where
// curl would have to give up. The retry asks for the rest (Range, with If-Range
// naming the first response's validator); a server that answers 206 from that
// offset continues the output, one that answers 200 with the same validator has its
// first bytes skipped, and one whose validator changed cannot be continued.
// Ownership: a value in the Transfer, main thread.

#include <cstdint>
#include <optional>
#include <string>

#include "sluice/error.hpp"
#include "sluice/headers.hpp"
#include "sluice/response.hpp"

namespace sluice::cli {

class FetchResume {
 public:
  /// -C: the output already holds the resource's bytes before `offset`; every
  /// request asks for the rest (Range: bytes=OFFSET-), and a 200 cannot continue it.
  void continue_at(std::uint64_t offset) noexcept { offset_ = offset; }
  std::uint64_t offset() const noexcept { return offset_; }
  /// -r: the request asks for these ranges as they are (curl's "bytes=" value); a
  /// retry after bytes were written cannot continue them.
  void ask_ranges(std::string ranges) { ranges_ = std::move(ranges); }

  /// The first response whose body was written: its validators, and whether its
  /// body was content-decoded (`decoding`: the request asked for it).
  void remember(const Response& response, bool decoding);
  /// Body bytes written so far (after decoding, as they reached the output).
  void wrote(std::uint64_t bytes) noexcept { written_ += bytes; }
  std::uint64_t written() const noexcept { return written_; }

  /// Range and If-Range for the next attempt: -r's ranges, else from the -C offset
  /// plus what was written; none from byte 0, or when the body was content-decoded
  /// (a range counts encoded bytes, the output decoded ones: the whole body comes
  /// again and its first bytes are skipped).
  void add_request_headers(Headers& headers) const;

  /// How many leading bytes of `response`'s body were already written and must be
  /// skipped: 0 for a 206 that starts where the output stopped, written() for a 200
  /// that is the same resource. An error (not retryable) when the resource changed,
  /// the range does not start where we stopped, or a 200 answered -C or a
  /// retried -r.
  Result<std::uint64_t> bytes_to_skip(const Response& response) const;

 private:
  std::uint64_t offset_ = 0;  // -C
  std::string ranges_;        // -r
  std::uint64_t written_ = 0;
  bool remembered_ = false;
  bool decoded_ = false;               // the first body had a Content-Encoding
  std::string validator_;              // resume_validator of the first response
  std::optional<std::uint64_t> size_;  // its Content-Length
};

}  // namespace sluice::cli
