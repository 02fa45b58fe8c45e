// Fuzz target: H1ResponseParser (src/http1, llhttp inside) fed server bytes in
// arbitrary splits: status lines, headers, 1xx heads, content-length, chunked bodies
// with extensions and trailers, close-delimited bodies, and several responses on one
// kept-alive connection.
// Input: one flags byte (bit 0: the request was HEAD; bit 1: the server closes the
// connection after the bytes, so finish() runs; bits 2-4: the header limit, 2^(8+n)
// bytes; bit 5: that close came over TLS without close_notify, so a close-delimited
// body must fail), then the split header of fuzz_input.hpp, then the server's bytes. After a
// response completes on a kept-alive connection, the parser is reused for the next
// request, as H1Connection does, with the bytes that follow.
// Invariants checked: events come in order (head, body*, trailers?, complete), a
// HEAD response has no body, feed() consumes all it is given unless a response
// completed inside it, nothing is fed after an error, and a close without
// close_notify never completes a response whose end only the close marks.

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <memory>
#include <span>
#include <string_view>
#include <vector>

#include "fuzz_input.hpp"
#include "http1/h1_codec.hpp"

namespace {

using sluice::fuzz::check;

// Checks the order of one response's events.
class OrderChecker final : public sluice::H1ParserEvents {
 public:
  explicit OrderChecker(bool head_request) : head_request_(head_request) {}

  void on_response_head(sluice::ReceivedHead head) override {
    check(!head_ && !complete_, "one head per response, before completion");
    check(head.status >= 200 && head.status <= 999, "the final head's status is 200..999");
    if (sluice::fuzz::debug_on()) std::fprintf(stderr, "fuzz: head %d\n", head.status);
    head_ = true;
  }
  void on_body(std::span<const std::byte> bytes) override {
    check(head_ && !trailers_ && !complete_, "body bytes come after the head, before the end");
    check(!head_request_, "a HEAD response has no body");
    body_bytes_ += bytes.size();
  }
  void on_trailers(sluice::Headers) override {
    check(head_ && !trailers_ && !complete_, "trailers come once, after the head");
    trailers_ = true;
  }
  void on_message_complete() override {
    check(head_ && !complete_, "completion comes once, after the head");
    if (sluice::fuzz::debug_on())
      std::fprintf(stderr, "fuzz: complete, %zu body bytes\n", body_bytes_);
    complete_ = true;
  }

  bool complete() const noexcept { return complete_; }

 private:
  bool head_request_;
  bool head_ = false;
  bool trailers_ = false;
  bool complete_ = false;
  std::size_t body_bytes_ = 0;
};

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  sluice::fuzz::FuzzInput input(data, size);
  const std::uint8_t flags = input.byte();
  const bool head_request = (flags & 1) != 0;
  const bool server_closes = (flags & 2) != 0;
  const auto close = (flags & 32) != 0 ? sluice::H1ResponseParser::Close::unauthenticated
                                       : sluice::H1ResponseParser::Close::authenticated;
  const std::size_t max_header_bytes = std::size_t{1} << (8 + ((flags >> 2) & 7));
  const std::vector<std::string_view> pieces = sluice::fuzz::split_pieces(input);

  sluice::H1ResponseParser parser;
  parser.expect_response(head_request, max_header_bytes);
  auto events = std::make_unique<OrderChecker>(head_request);
  for (std::string_view piece : pieces) {
    while (!piece.empty()) {
      auto fed = parser.feed(sluice::fuzz::bytes_of(piece), *events);
      if (!fed) {  // the connection closes; nothing more is parsed
        if (sluice::fuzz::debug_on())
          std::fprintf(stderr, "fuzz: %s\n", fed.error().message().c_str());
        return 0;
      }
      check(*fed <= piece.size(), "feed consumes at most what it was given");
      check(*fed == piece.size() || events->complete(),
            "feed stops short only when a response completed");
      piece.remove_prefix(*fed);
      if (!events->complete()) continue;
      // H1Connection reuses a kept-alive connection; leftover bytes would close it,
      // but parsing them as the next response exercises reuse all the same.
      if (!parser.keep_alive()) return 0;
      parser.expect_response(head_request, max_header_bytes);
      events = std::make_unique<OrderChecker>(head_request);
    }
  }
  if (server_closes) {
    const bool complete_before = events->complete();
    auto finished = parser.finish(*events, close);
    check(complete_before || !finished || close == sluice::H1ResponseParser::Close::authenticated ||
              !events->complete(),
          "a close without close_notify does not complete a response");
    if (!finished && sluice::fuzz::debug_on()) {
      std::fprintf(stderr, "fuzz: finish: %s\n", finished.error().message().c_str());
    }
  }
  return 0;
}
