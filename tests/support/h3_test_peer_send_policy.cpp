// H3TestPeer's send policies (H3PeerOptions::data_unit, min_send_window): the
// server transport's send buffer for request streams and the rules that move its
// bytes onto the wire within the client's credit (see h3_test_peer.hpp).

#include "support/h3_test_peer.hpp"

#include <algorithm>

namespace sluice::test {
namespace {

// The least a send-policy stream's send buffer holds before nghttp3 has to wait.
constexpr std::uint64_t kMinStaging = 64 * 1024;

bool is_bidi(std::int64_t stream_id) { return (stream_id & 0x2) == 0; }

}  // namespace

bool H3TestPeer::has_send_policy(std::int64_t stream_id) const {
  return is_bidi(stream_id) && (options_.data_unit > 0 || options_.min_send_window > 0);
}

// Big enough for a whole unit or the least burst, so a policy can always be met.
std::uint64_t H3TestPeer::staging_cap() const {
  return std::max<std::uint64_t>({options_.data_unit, options_.min_send_window, kMinStaging});
}

// A send-policy stream: nghttp3's bytes go into the send buffer (up to its cap;
// nghttp3 waits while it is full) and move on by the policy in move_staged.
bool H3TestPeer::stage_server_output(std::int64_t stream_id, bool fin,
                                     std::span<const nghttp3_vec> vecs) {
  Pipe& p = pipe(stream_id);
  Staged& staged = p.staged;
  std::uint64_t total = 0;
  for (const nghttp3_vec& vec : vecs) total += vec.len;
  const std::uint64_t space = staging_cap() - std::min(staging_cap(), staged.bytes.size());
  const std::uint64_t n = std::min(total, space);
  if (n == 0 && total > 0) {
    staged.full = true;
    nghttp3_conn_block_stream(server_, stream_id);
    return false;
  }
  std::uint64_t left = n;
  for (const nghttp3_vec& vec : vecs) {
    const std::size_t take = static_cast<std::size_t>(std::min<std::uint64_t>(left, vec.len));
    staged.bytes.append(reinterpret_cast<const char*>(vec.base), take);
    left -= take;
  }
  if (n > 0) p.down.pieces.emplace_back(n, true);
  if (fin && n == total) staged.fin = true;
  if (nghttp3_conn_add_write_offset(server_, stream_id, static_cast<std::size_t>(n)) != 0) {
    note("server add_write_offset failed");
  }
  move_staged(stream_id);
  return true;
}

// Moves staged bytes onto the wire as the policy and the client's credit allow;
// called when bytes are staged and whenever credit arrives.
void H3TestPeer::move_staged(std::int64_t stream_id) {
  Pipe& p = pipe(stream_id);
  Staged& staged = p.staged;
  if (p.down.reset) return;
  while (!staged.bytes.empty()) {
    if (staged.reserved == 0) {
      const Reservation reservation = reserve_staged(p);
      if (reservation.wait) break;
      staged.reserved = reservation.bytes;
    }
    const std::uint64_t n =
        std::min<std::uint64_t>({staged.reserved, staged.bytes.size(), p.down.room()});
    if (n == 0) break;  // the client lowered its window under a reservation
    p.down.pending.append(staged.bytes, 0, static_cast<std::size_t>(n));
    staged.bytes.erase(0, static_cast<std::size_t>(n));
    staged.reserved -= n;
    p.down.sent += n;
  }
  if (staged.bytes.empty() && staged.fin) p.down.fin = true;
  if (staged.full && staged.bytes.size() < staging_cap()) {
    staged.full = false;
    if (nghttp3_conn_unblock_stream(server_, stream_id) != 0) note("server unblock_stream failed");
  }
}

// Whether a unit (data_unit) or a burst (min_send_window alone) may begin now, and
// how many bytes it commits to. Only called with bytes staged.
H3TestPeer::Reservation H3TestPeer::reserve_staged(const Pipe& p) const {
  const std::uint64_t room = p.down.room();
  const std::uint64_t left = p.staged.bytes.size();
  const bool last = p.staged.fin;  // then `left` is all the stream still has to send
  const std::uint64_t gate =
      last ? std::min<std::uint64_t>(options_.min_send_window, left) : options_.min_send_window;
  if (options_.data_unit > 0) {
    if (left < options_.data_unit && !last) return {0, true};  // more is on its way
    const std::uint64_t unit = std::min<std::uint64_t>(options_.data_unit, left);
    if (room < std::max(unit, gate)) return {0, true};
    return {unit, false};
  }
  if (room < gate || room == 0) return {0, true};
  return {room, false};
}

}  // namespace sluice::test
