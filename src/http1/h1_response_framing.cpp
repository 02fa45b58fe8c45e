// H1ResponseParser's one leniency (see h1_response_core.hpp): a bare LF ends a line of
// the head and of chunked framing, as RFC 9112 2.2 allows. Those bytes reach llhttp
// through head_scratch with the CR added; chunk data goes to llhttp as it came.
// Ownership: HTTP thread only, like the parser.

#include <algorithm>
#include <string>

#include "http1/h1_response_core.hpp"

namespace sluice::h1_parse {

// One normalized piece of head to llhttp. `consumed` is the input taken; the result
// is where a response that ended (paused at its completion) stopped in the input.
Result<std::size_t> State::feed_head(const char* raw, std::size_t n, std::size_t& consumed) {
  consumed = normalize_head(raw, n);
  execute_end = head_scratch.data() + head_scratch.size();
  const llhttp_errno_t rv = llhttp_execute(&parser, head_scratch.data(), head_scratch.size());
  if (rv == HPE_PAUSED && phase == Phase::complete) {
    return raw_length_of(
        static_cast<std::size_t>(llhttp_get_error_pos(&parser) - head_scratch.data()));
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
    return raw_length_of(
        static_cast<std::size_t>(llhttp_get_error_pos(&parser) - head_scratch.data()));
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

}  // namespace sluice::h1_parse
