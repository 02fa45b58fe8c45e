#include "http3/h3_wire_tap.hpp"

#include <algorithm>

namespace sluice {

void H3WireTap::show(std::int64_t stream_id, WireDirection direction,
                     std::span<const std::byte> bytes) const {
  if (bytes.empty()) return;
  WireChunk chunk;
  chunk.connection = conn_id_;
  chunk.direction = direction;
  chunk.tls = true;  // QUIC always encrypts
  chunk.stream = stream_id;
  chunk.bytes = bytes;
  tap_(chunk);
}

void H3WireTap::received(std::int64_t stream_id, std::span<const std::uint8_t> data) const {
  show(stream_id, WireDirection::received, std::as_bytes(data));
}

void H3WireTap::offered(const QuicOutput& output, std::span<const QuicVec> vecs) {
  offered_stream_ = output.stream_id;
  offered_.assign(vecs.begin(),
                  vecs.begin() + static_cast<std::ptrdiff_t>(std::min(output.count, vecs.size())));
}

void H3WireTap::written(std::int64_t stream_id, std::size_t n) {
  if (stream_id != offered_stream_ || n == 0) return;
  // The usual case, a prefix of the first vec, is shown without a copy.
  if (!offered_.empty() && n <= offered_.front().len) {
    show(stream_id, WireDirection::sent,
         std::as_bytes(std::span<const std::uint8_t>(offered_.front().base, n)));
    return;
  }
  joined_.clear();
  for (const QuicVec& vec : offered_) {
    const std::size_t take = std::min(n - joined_.size(), vec.len);
    const auto* first = reinterpret_cast<const std::byte*>(vec.base);
    joined_.insert(joined_.end(), first, first + take);
    if (joined_.size() == n) break;
  }
  show(stream_id, WireDirection::sent, joined_);
}

}  // namespace sluice
