#pragma once
// ReplyBody: one response body of QuicTestServer as nghttp3 pulls it through its
// read_data callback. Pieces handed to nghttp3 stay alive (and in place) until the
// client acknowledged them, then they are freed, so a generated 8 MiB body costs
// what is in flight, not 8 MiB. For reset_mid_body only the first bytes are
// offered and the body never ends: the reset comes instead, once the client has
// acknowledged them (reset_due()).
// Ownership: owned by the H3ServerSession entry of its stream; the server's
// thread only.

#include <nghttp3/nghttp3.h>

#include <cstddef>
#include <cstdint>
#include <deque>
#include <optional>
#include <span>
#include <string>
#include <variant>

#include "support/quic_test_server.hpp"
#include "support/test_body.hpp"

namespace sluice::test {

class ReplyBody {
 public:
  /// The whole of `body`, or only its first `cut` bytes (then it never ends).
  ReplyBody(const std::variant<std::string, GeneratedBody>& body, std::optional<std::uint64_t> cut);

  /// What read_data answers: `count` vecs filled; `eof` when the body ends with
  /// them; neither means nothing to offer now (NGHTTP3_ERR_WOULDBLOCK).
  struct Pull {
    std::size_t count = 0;
    bool eof = false;
  };
  Pull pull(std::span<nghttp3_vec> vecs);
  /// nghttp3's acked_stream_data: `n` more body bytes reached the client.
  void acked(std::uint64_t n);
  /// A cut body whose offered bytes were all acknowledged.
  bool reset_due() const { return cut_ && acked_total_ >= *cut_; }
  std::uint64_t acked_total() const { return acked_total_; }

 private:
  BodyQueue queued_;                // not yet handed to nghttp3
  std::deque<std::string> handed_;  // handed, not yet fully acknowledged
  std::uint64_t front_acked_ = 0;   // bytes of handed_.front() acknowledged
  std::uint64_t acked_total_ = 0;
  std::optional<std::uint64_t> cut_;
};

/// The body's length in bytes.
std::uint64_t body_size(const std::variant<std::string, GeneratedBody>& body);

}  // namespace sluice::test
