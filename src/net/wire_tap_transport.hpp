#pragma once
// WireTapTransport: a Transport that shows every byte it moves to a wire tap
// (ClientOptions::wire_tap, curl's --trace) before passing it on. It wraps the
// connection's transport after the handshake, so over TLS it sees the cleartext.
// Only made when a tap is set, so untapped connections pay nothing.
// Ownership: HTTP thread only; owns the transport it wraps.

#include <cstdint>
#include <functional>
#include <memory>

#include "net/transport.hpp"
#include "sluice/client.hpp"

namespace sluice {

std::unique_ptr<Transport> make_wire_tap_transport(std::unique_ptr<Transport> inner,
                                                   std::function<void(const WireChunk&)> tap,
                                                   std::uint64_t conn_id);

}  // namespace sluice
