#pragma once
// H3WireTap: shows an HTTP/3 connection's cleartext to a wire tap
// (ClientOptions::wire_tap, curl's --trace): each QUIC stream's bytes as nghttp3
// wrote them (HTTP/3 frames, QPACK-encoded field sections) once ngtcp2 took them
// into packets, and as they arrived in order. A byte is shown once: ngtcp2
// retransmits from the stream's buffer without asking again. Made only when a tap
// is set. Ownership: HTTP thread only, owned by its H3Connection.

#include <cstdint>
#include <functional>
#include <span>
#include <vector>

#include "quic/quic_streams.hpp"
#include "sluice/client.hpp"

namespace sluice {

class H3WireTap {
 public:
  H3WireTap(std::function<void(const WireChunk&)> tap, std::uint64_t conn_id)
      : tap_(std::move(tap)), conn_id_(conn_id) {}

  /// In-order bytes of `stream_id` that arrived.
  void received(std::int64_t stream_id, std::span<const std::uint8_t> data) const;
  /// What the session offered to send: kept until written() says how much went.
  void offered(const QuicOutput& output, std::span<const QuicVec> vecs);
  /// `n` bytes of the last offer went into packets: they are shown as one chunk.
  void written(std::int64_t stream_id, std::size_t n);

 private:
  void show(std::int64_t stream_id, WireDirection direction,
            std::span<const std::byte> bytes) const;

  std::function<void(const WireChunk&)> tap_;
  std::uint64_t conn_id_;
  std::int64_t offered_stream_ = -1;
  std::vector<QuicVec> offered_;   // valid until the session hears of the write
  std::vector<std::byte> joined_;  // the written bytes of several vecs, reused
};

}  // namespace sluice
