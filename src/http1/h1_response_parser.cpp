// H1ResponseParser: llhttp (HTTP_RESPONSE, no lenient flags) turned into
// ReceivedHead, body spans, trailers and completion, with the head size limit and
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
#include "http1/h1_response_core.hpp"

namespace sluice {
namespace h1_parse {

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
    error =
        Error(ErrorCategory::io, std::string("HTTP/1.1: cannot handle the response: ") + e.what());
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
  return Error(ErrorCode::headers_too_large, "HTTP/1.1: response trailers exceed the limit of " +
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
  events->on_response_head(ReceivedHead{status, std::move(head_fields), version});
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

Result<void> State::finish(H1ParserEvents& sink, H1ResponseParser::Close close) {
  if (phase == Phase::failed) return *error;
  if (phase == Phase::complete) return {};
  // Before the head there is no body to call truncated: nothing at all is curl's
  // "empty reply" (52); part of a head is a broken response.
  if (!head_done && head_bytes == 0) {
    return fail(Error(ErrorCode::empty_reply,
                      "HTTP/1.1: empty reply from server (the connection closed before any byte "
                      "of the response)"));
  }
  if (!head_done) {
    return fail(protocol_error("connection closed before the response headers were complete"));
  }
  if (phase != Phase::body || body_kind != BodyKind::until_close) {
    return fail(Error(ErrorCode::body_truncated, "HTTP/1.1: " + truncation_message()));
  }
  if (close == H1ResponseParser::Close::unauthenticated) {
    // Not retryable: a server that ends bodies this way does it every time, and a
    // retry would fail the same way after fetching the same bytes again.
    return fail(
        Error(ErrorCode::body_truncated,
              "HTTP/1.1: the TLS connection ended without close_notify after " +
                  format_u64(body_bytes) +
                  " body bytes; the body has no length and ends only at the close, so it may be "
                  "truncated")
            .set_retryable(false));
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

}  // namespace h1_parse

using h1_parse::BodyKind;
using h1_parse::Phase;
using h1_parse::ResponseCore;

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
