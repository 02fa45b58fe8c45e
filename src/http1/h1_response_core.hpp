#pragma once
// The state of H1ResponseParser, shared by the files that make it up:
// h1_response_parser.cpp (llhttp's callbacks, feed and finish),
// h1_response_framing.cpp (the bare-LF leniency: the head and chunked framing through
// a scratch copy with the CRs added) and h1_response_errors.cpp (errors a person can
// read, worded by where in the message the parser was).
// Ownership: one per connection's parser, HTTP thread only.

#include <llhttp.h>

#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "http1/h1_codec.hpp"

namespace sluice::h1_parse {

// Where in the current message the parser is; errors are worded by it.
enum class Phase { status_line, headers, body, trailers, complete, failed };

// How the final response's body ends, decided when its head completes.
enum class BodyKind { none, length, chunked, until_close };

inline constexpr std::size_t kFieldOverhead = 4;   // ": " and CRLF of a trailer line
inline constexpr std::size_t kTypicalFields = 12;  // fields reserved at a head's first
// Head scratch kept between responses of one connection; a larger copy is freed.
inline constexpr std::size_t kKeptHeadScratch = 4096;

inline Error protocol_error(std::string what) {
  return Error(ErrorCategory::protocol, "HTTP/1.1: " + std::move(what));
}

inline std::string format_u64(std::uint64_t value) { return std::to_string(value); }

// All of the parser; H1ResponseParser::State only names it, so that the llhttp
// trampolines can see its members without friendship.
struct ResponseCore {
  explicit ResponseCore(std::size_t max_bytes) : max_header_bytes(max_bytes) { reset(false); }

  void reset(bool head);
  Result<std::size_t> feed(std::span<const std::byte> bytes, H1ParserEvents& events);
  Result<void> finish(H1ParserEvents& events, H1ResponseParser::Close close);

  // llhttp callbacks, each returning the code llhttp expects.
  Result<int> on_message_begin();
  Result<int> on_status_complete();
  Result<int> on_header_field(const char* at, std::size_t length);
  Result<int> on_header_value(const char* at, std::size_t length);
  Result<int> on_header_value_complete();
  Result<int> on_headers_complete();
  Result<int> on_chunk_header();
  Result<int> on_body(const char* at, std::size_t length);
  Result<int> on_message_complete();

  // Runs a callback body: a failure (or an exception) is kept in `error` and
  // becomes llhttp's failure code, so no exception crosses llhttp's C frames.
  template <class Body>
  int guard(Body&& body) noexcept;

  Error fail(Error error);
  Error translate(llhttp_errno_t rv) const;
  Result<int> check_trailer_size() const;
  std::string progress() const;
  std::string truncation_message() const;
  Error head_too_large() const;
  /// Copies head bytes into head_scratch with a CR given to every bare LF, up to and
  /// including the empty line that ends a head; returns the input bytes taken.
  std::size_t normalize_head(const char* raw, std::size_t n);
  /// Input bytes behind `normalized` bytes of head_scratch.
  std::size_t raw_length_of(std::size_t normalized) const;
  void release_head_scratch();
  Result<std::size_t> feed_head(const char* raw, std::size_t n, std::size_t& consumed);
  /// One step of a chunked body: chunk data straight to llhttp (no copy), or the
  /// framing up to the end of one line, a bare LF given its CR. `consumed` is the
  /// input taken; the result is where the response ended, when it did.
  Result<std::size_t> feed_chunked(const char* raw, std::size_t n, std::size_t& consumed);
  /// Copies one framing line (up to and including its LF, or all of `n`) into
  /// head_scratch with a CR given to a bare LF; returns the input bytes taken.
  std::size_t normalize_framing_line(const char* raw, std::size_t n);
  Result<int> execute_scratch();

  llhttp_t parser{};
  std::size_t max_header_bytes;
  H1ParserEvents* events = nullptr;   // only inside feed() and finish()
  const char* execute_end = nullptr;  // end of the bytes llhttp is executing
  bool head_request = false;
  bool finishing = false;
  bool informational = false;  // the head being parsed is a 1xx
  bool head_done = false;      // the final (non-1xx) head has been reported
  bool keep_alive = false;
  // Bare LF in the head (RFC 9112 2.2 lets a recipient take it as a line end; curl
  // and browsers do, llhttp 8 does not): the head goes to llhttp through
  // head_scratch with the CR added. Body bytes never pass through it.
  std::string head_scratch;
  std::vector<std::size_t> inserted_crs;  // head_scratch offsets of added CRs
  bool head_line_empty = true;            // nothing but a CR on the head line so far
  bool head_prev_cr = false;              // the last head byte was a CR
  Phase phase = Phase::status_line;
  BodyKind body_kind = BodyKind::none;
  std::size_t head_bytes = 0;     // raw bytes of every head so far, 1xx included
  std::size_t trailer_bytes = 0;  // field bytes of the trailer section
  std::uint64_t expected_length = 0;
  std::uint64_t body_bytes = 0;
  int crlf_due = 0;              // bytes of the CRLF after a chunk's data not yet checked
  bool in_chunk_data = false;    // between a chunk-size line and the end of its data
  bool framing_prev_cr = false;  // the last framing byte was a CR
  Headers fields;                // the head's fields, then the trailers'
  std::string name;
  std::string value;
  std::optional<Error> error;
};

using State = ResponseCore;

}  // namespace sluice::h1_parse
