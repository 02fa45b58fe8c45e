// H1ResponseParser: llhttp (HTTP_RESPONSE, no lenient flags) turned into
// ResponseHead, body spans, trailers and completion, with the head size limit and
// errors a person can read. One leniency, of our own: a bare LF ends a line of the
// head and of chunked framing (chunk-size lines, the line end after chunk data,
// trailers), as RFC 9112 2.2 allows and curl and browsers do (docs/reliability.md
// lists what is accepted and what stays strict). Chunk data never passes through it.
//
// Ownership: one parser per connection, HTTP thread only. llhttp calls back into
// State through noexcept trampolines; the events object is borrowed for the length
// of one feed() or finish() call and must not re-enter the parser.

#include <llhttp.h>

#include <algorithm>
#include <exception>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "http1/h1_codec.hpp"

namespace sluice {
namespace {

// Where in the current message the parser is; errors are worded by it.
enum class Phase { status_line, headers, body, trailers, complete, failed };

// How the final response's body ends, decided when its head completes.
enum class BodyKind { none, length, chunked, until_close };

constexpr std::size_t kFieldOverhead = 4;  // ": " and CRLF of a trailer line
constexpr std::size_t kTypicalFields = 12;  // fields reserved at a head's first
// Head scratch kept between responses of one connection; a larger copy is freed.
constexpr std::size_t kKeptHeadScratch = 4096;

Error protocol_error(std::string what) {
  return Error(ErrorCategory::protocol, "HTTP/1.1: " + std::move(what));
}

std::string format_u64(std::uint64_t value) { return std::to_string(value); }

// All of the parser; H1ResponseParser::State only names it, so that the llhttp
// trampolines below can see its members without friendship.
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
  H1ParserEvents* events = nullptr;  // only inside feed() and finish()
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
  bool head_line_empty = true;  // nothing but a CR on the head line so far
  bool head_prev_cr = false;    // the last head byte was a CR
  Phase phase = Phase::status_line;
  BodyKind body_kind = BodyKind::none;
  std::size_t head_bytes = 0;     // raw bytes of every head so far, 1xx included
  std::size_t trailer_bytes = 0;  // field bytes of the trailer section
  std::uint64_t expected_length = 0;
  std::uint64_t body_bytes = 0;
  int crlf_due = 0;  // bytes of the CRLF after a chunk's data not yet checked
  bool in_chunk_data = false;   // between a chunk-size line and the end of its data
  bool framing_prev_cr = false; // the last framing byte was a CR
  Headers fields;  // the head's fields, then the trailers'
  std::string name;
  std::string value;
  std::optional<Error> error;
};

using State = ResponseCore;

State& state_of(llhttp_t* parser) noexcept { return *static_cast<State*>(parser->data); }

template <Result<int> (State::*Member)()>
int notify_trampoline(llhttp_t* parser) noexcept {
  State& self = state_of(parser);
  return self.guard([&] { return (self.*Member)(); });
}

template <Result<int> (State::*Member)(const char*, std::size_t)>
int data_trampoline(llhttp_t* parser, const char* at, std::size_t length) noexcept {
  State& self = state_of(parser);
  return self.guard([&] { return (self.*Member)(at, length); });
}

llhttp_settings_t make_settings() noexcept {
  llhttp_settings_t settings;
  llhttp_settings_init(&settings);
  settings.on_message_begin = notify_trampoline<&State::on_message_begin>;
  settings.on_status_complete = notify_trampoline<&State::on_status_complete>;
  settings.on_header_field = data_trampoline<&State::on_header_field>;
  settings.on_header_value = data_trampoline<&State::on_header_value>;
  settings.on_header_value_complete = notify_trampoline<&State::on_header_value_complete>;
  settings.on_headers_complete = notify_trampoline<&State::on_headers_complete>;
  settings.on_chunk_header = notify_trampoline<&State::on_chunk_header>;
  settings.on_body = data_trampoline<&State::on_body>;
  settings.on_message_complete = notify_trampoline<&State::on_message_complete>;
  return settings;
}

// llhttp keeps a pointer to its settings for the parser's lifetime; one immutable
// table serves every parser on every thread.
const llhttp_settings_t kSettings = make_settings();

template <class Body>
int State::guard(Body&& body) noexcept {
  try {
    Result<int> result = body();
    if (result) return *result;
    error = std::move(result).error();
  } catch (const std::exception& e) {
    error = Error(ErrorCategory::io,
                  std::string("HTTP/1.1: cannot handle the response: ") + e.what());
  } catch (...) {
    error = Error(ErrorCategory::io, "HTTP/1.1: cannot handle the response");
  }
  return -1;
}

void State::reset(bool head) {
  llhttp_init(&parser, HTTP_RESPONSE, &kSettings);
  parser.data = this;
  head_request = head;
  finishing = informational = head_done = keep_alive = false;
  head_line_empty = true;
  head_prev_cr = false;
  phase = Phase::status_line;
  body_kind = BodyKind::none;
  head_bytes = trailer_bytes = 0;
  expected_length = body_bytes = 0;
  crlf_due = 0;
  in_chunk_data = framing_prev_cr = false;
  fields = Headers();
  name.clear();
  value.clear();
  error.reset();
}

// ---- callbacks ----------------------------------------------------------------

Result<int> State::on_message_begin() {
  // Also the start of the final response after a 1xx.
  phase = Phase::status_line;
  informational = false;
  fields = Headers();
  return 0;
}

Result<int> State::on_status_complete() {
  phase = Phase::headers;
  return 0;
}

Result<int> State::on_header_field(const char* at, std::size_t length) {
  // A status line without a reason phrase may skip on_status_complete.
  if (phase == Phase::status_line) phase = Phase::headers;
  name.append(at, length);
  return check_trailer_size();
}

Result<int> State::on_header_value(const char* at, std::size_t length) {
  value.append(at, length);
  return check_trailer_size();
}

Result<int> State::on_header_value_complete() {
  // llhttp 8.1 lets spaces into names ("Bad Name", "Name :") and an empty name after
  // a bare CR; a client that accepted those could disagree with a proxy about the
  // message, so a name must be a token.
  if (Result<void> valid = validate_header_name(name); !valid) {
    const char* where = phase == Phase::trailers ? "invalid trailer" : "invalid header";
    return protocol_error(std::string(where) + " from server (" + valid.error().message() + ")");
  }
  // Trailing whitespace is not part of a field value (RFC 9110 section 5.5); llhttp
  // drops only the leading whitespace.
  while (!value.empty() && (value.back() == ' ' || value.back() == '\t')) value.pop_back();
  if (phase == Phase::trailers) trailer_bytes += name.size() + value.size() + kFieldOverhead;
  // Room for a typical head at once rather than a reallocation at each doubling.
  if (fields.empty()) fields.reserve(kTypicalFields);
  fields.add(std::move(name), std::move(value));
  name.clear();
  value.clear();
  return 0;
}

// The head section is capped on raw bytes in feed(); trailers arrive after the body,
// so they are capped on the field bytes kept, which is what costs memory.
Result<int> State::check_trailer_size() const {
  if (phase != Phase::trailers) return 0;
  if (trailer_bytes + name.size() + value.size() + kFieldOverhead <= max_header_bytes) return 0;
  return Error(ErrorCode::headers_too_large,
               "HTTP/1.1: response trailers exceed the limit of " +
                   format_u64(max_header_bytes) + " bytes");
}

Result<int> State::on_headers_complete() {
  const int status = llhttp_get_status_code(&parser);
  if (status == 101) {
    return protocol_error("server switched protocols (101) although no upgrade was requested");
  }
  if (status < 100) {
    return protocol_error("invalid status line from server (status " + std::to_string(status) +
                          ")");
  }
  if (llhttp_get_http_major(&parser) != 1) {
    return protocol_error("invalid status line from server (HTTP version " +
                          std::to_string(llhttp_get_http_major(&parser)) + "." +
                          std::to_string(llhttp_get_http_minor(&parser)) + ")");
  }
  // Returning 1 tells llhttp the message has no body whatever its headers say: 1xx,
  // 204 and 304 never have one, nor does the answer to HEAD (RFC 9112 section 6.3).
  if (status < 200) {
    informational = true;
    return 1;
  }
  head_done = true;
  phase = Phase::body;
  const bool no_body = head_request || status == 204 || status == 304;
  if (no_body) {
    body_kind = BodyKind::none;
  } else if (parser.flags & F_CHUNKED) {
    body_kind = BodyKind::chunked;
  } else if (llhttp_message_needs_eof(&parser)) {
    body_kind = BodyKind::until_close;
  } else if (parser.flags & F_CONTENT_LENGTH) {
    body_kind = BodyKind::length;
    expected_length = parser.content_length;
  }
  Headers head_fields = std::move(fields);
  fields = Headers();
  std::optional<HttpVersion> version;
  if (llhttp_get_http_minor(&parser) == 0) version = HttpVersion::http1_0;
  events->on_response_head(ResponseHead{status, std::move(head_fields), version});
  return no_body ? 1 : 0;
}

Result<int> State::on_chunk_header() {
  // The size-0 chunk ends the data; any fields after it are trailers.
  if (parser.content_length == 0) phase = Phase::trailers;
  in_chunk_data = parser.content_length > 0;
  return 0;
}

Result<int> State::on_body(const char* at, std::size_t length) {
  body_bytes += length;
  events->on_body({reinterpret_cast<const std::byte*>(at), length});
  if (body_kind != BodyKind::chunked || parser.content_length != 0) return 0;
  // This chunk's data ended at at + length; llhttp's loose mode skips the next two
  // bytes unseen, so feed_chunked() checks that they are a CRLF or a bare LF (a
  // smuggling vector otherwise) and gives llhttp a CRLF either way.
  in_chunk_data = false;
  crlf_due = 2;
  return 0;
}

Result<int> State::on_message_complete() {
  if (informational) {
    // A 1xx is not the answer; the real response follows on the same connection.
    informational = false;
    phase = Phase::status_line;
    fields = Headers();
    return 0;
  }
  // Read here: llhttp clears the message's flags right after this callback.
  keep_alive = llhttp_should_keep_alive(&parser) != 0;
  phase = Phase::complete;
  if (!fields.empty()) {
    Headers trailers = std::move(fields);
    fields = Headers();
    events->on_trailers(std::move(trailers));
  }
  events->on_message_complete();
  // Pausing stops llhttp at the message's last byte, so feed() can report where the
  // response ended; bytes after it belong to no request.
  return finishing ? 0 : static_cast<int>(HPE_PAUSED);
}

// ---- errors -------------------------------------------------------------------

Error State::fail(Error failure) {
  phase = Phase::failed;
  error = failure;
  return failure;
}

Error State::head_too_large() const {
  return Error(ErrorCode::headers_too_large, "HTTP/1.1: response header block exceeds the limit of " +
                                             format_u64(max_header_bytes) + " bytes");
}

// Codes that name the fault themselves; the rest are worded by where they happened.
const char* describe_code(llhttp_errno_t rv) noexcept {
  switch (rv) {
    case HPE_INVALID_CONSTANT:
    case HPE_INVALID_VERSION:
    case HPE_INVALID_STATUS:
      return "invalid status line";
    case HPE_INVALID_CONTENT_LENGTH:
      return "invalid Content-Length";
    case HPE_UNEXPECTED_CONTENT_LENGTH:
      return "conflicting Content-Length";
    case HPE_INVALID_TRANSFER_ENCODING:
      return "invalid Transfer-Encoding";
    case HPE_INVALID_CHUNK_SIZE:
      return "invalid chunk size";
    case HPE_CLOSED_CONNECTION:
      return "data after a response that closes the connection";
    default:
      return nullptr;
  }
}

const char* describe_phase(Phase phase, BodyKind body_kind) noexcept {
  switch (phase) {
    case Phase::status_line:
      return "invalid status line";
    case Phase::headers:
      return "invalid header";
    case Phase::body:
      return body_kind == BodyKind::chunked ? "invalid chunked body" : "malformed response";
    case Phase::trailers:
      return "invalid trailer";
    case Phase::complete:
    case Phase::failed:
      break;
  }
  return "malformed response";
}

Error State::translate(llhttp_errno_t rv) const {
  if (error) return *error;  // a callback's own failure
  const char* words = describe_code(rv);
  if (words == nullptr && rv == HPE_INVALID_HEADER_TOKEN) {
    words = phase == Phase::trailers ? "invalid trailer" : "invalid header";
  }
  if (words == nullptr) words = describe_phase(phase, body_kind);
  std::string message = std::string(words) + " from server";
  const char* reason = llhttp_get_error_reason(&parser);
  if (reason != nullptr && *reason != '\0') message += std::string(" (") + reason + ")";
  return protocol_error(std::move(message));
}

std::string State::progress() const {
  if (!head_done) return "before the response headers";
  if (body_kind == BodyKind::chunked) {
    return "inside a chunked body after " + format_u64(body_bytes) + " bytes";
  }
  if (body_kind == BodyKind::length) {
    return "after " + format_u64(body_bytes) + " of " + format_u64(expected_length) +
           " body bytes";
  }
  return "after " + format_u64(body_bytes) + " body bytes";
}

std::string State::truncation_message() const { return "connection closed " + progress(); }

// ---- feed and finish ----------------------------------------------------------

// Lends the events object to the callbacks for one feed() or finish() call.
class LendEvents {
 public:
  LendEvents(State& state, H1ParserEvents& events) : state_(state) { state_.events = &events; }
  ~LendEvents() { state_.events = nullptr; }
  LendEvents(const LendEvents&) = delete;
  LendEvents& operator=(const LendEvents&) = delete;

 private:
  State& state_;
};

Result<std::size_t> State::feed(std::span<const std::byte> bytes, H1ParserEvents& sink) {
  if (phase == Phase::failed) return *error;
  if (phase == Phase::complete) return std::size_t{0};
  const LendEvents lend(*this, sink);
  std::size_t offset = 0;
  while (offset < bytes.size()) {
    // Until the final head is done, llhttp sees at most the bytes left under the
    // limit, so an endless head is refused after max_header_bytes, not buffered.
    std::size_t n = bytes.size() - offset;
    bool capped = false;
    if (!head_done && n > max_header_bytes - head_bytes) {
      n = max_header_bytes - head_bytes;
      capped = true;
    }
    const char* start = reinterpret_cast<const char*>(bytes.data()) + offset;
    if (!head_done) {
      std::size_t taken = 0;
      Result<std::size_t> fed = feed_head(start, n, taken);
      if (!fed) return std::move(fed).error();
      if (phase == Phase::complete) return offset + *fed;  // a bodiless response ended
      if (head_done) release_head_scratch();
      head_bytes += taken;
      offset += taken;
      if (capped && !head_done && taken == n) return fail(head_too_large());
      continue;
    }
    if (body_kind == BodyKind::chunked) {
      std::size_t taken = 0;
      Result<std::size_t> fed = feed_chunked(start, n, taken);
      if (!fed) return fail(std::move(fed).error());
      if (phase == Phase::complete) return offset + *fed;
      offset += taken;
      continue;
    }
    execute_end = start + n;
    const llhttp_errno_t rv = llhttp_execute(&parser, start, n);
    if (rv == HPE_PAUSED && phase == Phase::complete) {
      return offset + static_cast<std::size_t>(llhttp_get_error_pos(&parser) - start);
    }
    if (rv != HPE_OK) return fail(translate(rv));
    offset += n;
  }
  return offset;
}

// One normalized piece of head to llhttp. `consumed` is the input taken; the result
// is where a response that ended (paused at its completion) stopped in the input.
Result<std::size_t> State::feed_head(const char* raw, std::size_t n, std::size_t& consumed) {
  consumed = normalize_head(raw, n);
  execute_end = head_scratch.data() + head_scratch.size();
  const llhttp_errno_t rv = llhttp_execute(&parser, head_scratch.data(), head_scratch.size());
  if (rv == HPE_PAUSED && phase == Phase::complete) {
    return raw_length_of(static_cast<std::size_t>(llhttp_get_error_pos(&parser) -
                                                  head_scratch.data()));
  }
  if (rv != HPE_OK) return fail(translate(rv));
  return consumed;
}

Result<std::size_t> State::feed_chunked(const char* raw, std::size_t n, std::size_t& consumed) {
  if (in_chunk_data) {
    // Exactly the data: what follows it is framing, which llhttp must see normalized.
    consumed = static_cast<std::size_t>(std::min<std::uint64_t>(n, parser.content_length));
    execute_end = raw + consumed;
    const llhttp_errno_t rv = llhttp_execute(&parser, raw, consumed);
    if (rv != HPE_OK) return translate(rv);
    return consumed;
  }
  if (crlf_due > 0) {
    // The line end after chunk data: CRLF, or a bare LF.
    const char c = raw[0];
    const bool ok = c == '\n' || (crlf_due == 2 && c == '\r');
    if (!ok) {
      return protocol_error("invalid chunked body from server (chunk data not followed by CRLF)");
    }
    inserted_crs.clear();
    if (c == '\r' && n >= 2 && raw[1] == '\n') {  // the usual CRLF, in one step
      head_scratch.assign("\r\n");
      crlf_due = 0;
      consumed = 2;
    } else {
      head_scratch.assign(c == '\n' && crlf_due == 2 ? "\r\n" : std::string(1, c));
      if (c == '\n' && crlf_due == 2) inserted_crs.push_back(0);
      crlf_due = c == '\n' ? 0 : 1;
      consumed = 1;
    }
  } else {
    consumed = normalize_framing_line(raw, n);
  }
  Result<int> executed = execute_scratch();
  if (!executed) return std::move(executed).error();
  if (phase == Phase::complete) {
    return raw_length_of(static_cast<std::size_t>(llhttp_get_error_pos(&parser) -
                                                  head_scratch.data()));
  }
  return consumed;
}

Result<int> State::execute_scratch() {
  execute_end = head_scratch.data() + head_scratch.size();
  const llhttp_errno_t rv = llhttp_execute(&parser, head_scratch.data(), head_scratch.size());
  if (rv == HPE_OK || (rv == HPE_PAUSED && phase == Phase::complete)) return 0;
  return translate(rv);
}

std::size_t State::normalize_framing_line(const char* raw, std::size_t n) {
  head_scratch.clear();
  inserted_crs.clear();
  std::size_t i = 0;
  while (i < n) {
    const char c = raw[i++];
    if (c == '\n' && !framing_prev_cr) {
      inserted_crs.push_back(head_scratch.size());
      head_scratch.push_back('\r');
    }
    head_scratch.push_back(c);
    framing_prev_cr = c == '\r';
    if (c == '\n') break;
  }
  return i;
}

std::size_t State::normalize_head(const char* raw, std::size_t n) {
  head_scratch.clear();
  inserted_crs.clear();
  std::size_t i = 0;
  while (i < n) {
    const char c = raw[i++];
    if (c == '\n') {
      if (!head_prev_cr) {
        inserted_crs.push_back(head_scratch.size());
        head_scratch.push_back('\r');
      }
      head_scratch.push_back('\n');
      const bool head_ends = head_line_empty;
      head_line_empty = true;
      head_prev_cr = false;
      // The rest may be body: a 1xx head's successor comes back through here, the
      // final head's body does not.
      if (head_ends) break;
      continue;
    }
    head_scratch.push_back(c);
    head_prev_cr = c == '\r';
    if (c != '\r') head_line_empty = false;
  }
  return i;
}

// A large head's copy is not kept for the rest of the connection (a small one is, for
// the next response).
void State::release_head_scratch() {
  if (head_scratch.capacity() <= kKeptHeadScratch) return;
  head_scratch = std::string();
  inserted_crs = std::vector<std::size_t>();
}

std::size_t State::raw_length_of(std::size_t normalized) const {
  std::size_t added = 0;
  while (added < inserted_crs.size() && inserted_crs[added] < normalized) ++added;
  return normalized - added;
}

Result<void> State::finish(H1ParserEvents& sink, H1ResponseParser::Close close) {
  if (phase == Phase::failed) return *error;
  if (phase == Phase::complete) return {};
  if (phase != Phase::body || body_kind != BodyKind::until_close) {
    return fail(Error(ErrorCode::body_truncated, "HTTP/1.1: " + truncation_message()));
  }
  if (close == H1ResponseParser::Close::unauthenticated) {
    // Not retryable: a server that ends bodies this way does it every time, and a
    // retry would fail the same way after fetching the same bytes again.
    return fail(Error(ErrorCode::body_truncated,
        "HTTP/1.1: the TLS connection ended without close_notify after " + format_u64(body_bytes) +
        " body bytes; the body has no length and ends only at the close, so it may be "
        "truncated").set_retryable(false));
  }
  // A close-delimited body ends here; llhttp fires on_message_complete.
  const LendEvents lend(*this, sink);
  finishing = true;
  const llhttp_errno_t rv = llhttp_finish(&parser);
  if (rv != HPE_OK) return fail(translate(rv));
  if (phase != Phase::complete) {
    return fail(Error(ErrorCode::body_truncated, "HTTP/1.1: " + truncation_message()));
  }
  return {};
}

}  // namespace

// ---- H1ResponseParser ---------------------------------------------------------

struct H1ResponseParser::State : ResponseCore {
  using ResponseCore::ResponseCore;
};

H1ResponseParser::H1ResponseParser(std::size_t max_header_bytes)
    : state_(std::make_unique<State>(max_header_bytes)) {}

H1ResponseParser::~H1ResponseParser() = default;

void H1ResponseParser::expect_response(bool head_request, std::size_t max_header_bytes) {
  state_->max_header_bytes = max_header_bytes;
  state_->reset(head_request);
}

Result<std::size_t> H1ResponseParser::feed(std::span<const std::byte> bytes,
                                           H1ParserEvents& events) {
  return state_->feed(bytes, events);
}

Result<void> H1ResponseParser::finish(H1ParserEvents& events, Close close) {
  return state_->finish(events, close);
}

bool H1ResponseParser::keep_alive() const noexcept {
  return state_->phase == Phase::complete && state_->keep_alive;
}

bool H1ResponseParser::head_done() const noexcept { return state_->head_done; }

std::uint64_t H1ResponseParser::plain_body_left() const noexcept {
  const State& state = *state_;
  if (state.phase != Phase::body) return 0;
  if (state.body_kind == BodyKind::until_close) return UINT64_MAX;
  if (state.body_kind == BodyKind::length) return state.expected_length - state.body_bytes;
  return 0;
}

std::string H1ResponseParser::progress() const { return state_->progress(); }

}  // namespace sluice
