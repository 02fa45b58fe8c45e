// Fuzz target: ConnectReply (src/connect/proxy_connect), which reads a proxy's answer to
// CONNECT before a tunnel carries TLS.
// Input: fuzz_input.hpp's split header, then the bytes the proxy sends, fed in those
// pieces.
// Invariants checked: once decided (open, refused, malformed) the state never
// changes back to incomplete; open means a 2xx status and refused any other; the
// head is never read past 16 KiB undecided; and the pieces do not matter: the same
// bytes in one piece end in the same state with the same status.

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "connect/proxy_connect.hpp"
#include "fuzz_input.hpp"

namespace {

using sluice::ConnectReply;
using sluice::fuzz::check;

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  sluice::fuzz::FuzzInput input(data, size);
  const std::vector<std::string_view> pieces = sluice::fuzz::split_pieces(input);
  ConnectReply reply;
  ConnectReply::State state = ConnectReply::State::incomplete;
  std::size_t fed = 0;
  for (std::string_view piece : pieces) {
    if (state != ConnectReply::State::incomplete) break;  // the caller stops reading
    state = reply.feed(piece);
    fed += piece.size();
    check(state != ConnectReply::State::incomplete || fed <= 16 * 1024 + piece.size(),
          "an undecided head grew past its bound");
  }
  if (state == ConnectReply::State::open) {
    check(reply.status() >= 200 && reply.status() < 300, "a tunnel opened without a 2xx");
  }
  if (state == ConnectReply::State::refused) {
    check(reply.status() < 200 || reply.status() >= 300, "a 2xx refused the tunnel");
  }
  if (state != ConnectReply::State::incomplete) {
    check(reply.feed("x") != ConnectReply::State::incomplete, "a decided answer became undecided");
  }
  // The same bytes at once, up to where the pieces stopped being read.
  std::string joined;
  std::size_t taken = 0;
  for (std::string_view piece : pieces) {
    if (taken >= fed) break;
    joined.append(piece);
    taken += piece.size();
  }
  if (state != ConnectReply::State::incomplete && state != ConnectReply::State::malformed) {
    ConnectReply whole;
    const ConnectReply::State at_once = whole.feed(joined);
    check(at_once == state, "the pieces changed the outcome");
    check(whole.status() == reply.status(), "the pieces changed the status");
  }
  return 0;
}
