// WireTapTransport: see wire_tap_transport.hpp.
// Ownership: HTTP thread only.

#include "net/wire_tap_transport.hpp"

#include <utility>

namespace sluice {
namespace {

class WireTapTransport final : public Transport {
 public:
  WireTapTransport(std::unique_ptr<Transport> inner, std::function<void(const WireChunk&)> tap,
                   std::uint64_t conn_id)
      : inner_(std::move(inner)), tap_(std::move(tap)), conn_id_(conn_id) {}

  int fd() const noexcept override { return inner_->fd(); }
  Result<IoStatus> handshake() override { return inner_->handshake(); }

  Result<IoOutcome> read(std::span<std::byte> into) override {
    auto got = inner_->read(into);
    if (got && got->bytes > 0) show(WireDirection::received, into.first(got->bytes));
    return got;
  }

  // TLS reports bytes written only once their record is out, so what is shown here
  // went to the socket, once, however often a write is retried.
  Result<IoOutcome> write(std::span<const std::byte> from) override {
    auto sent = inner_->write(from);
    if (sent && sent->bytes > 0) show(WireDirection::sent, from.first(sent->bytes));
    return sent;
  }

  std::string alpn() const override { return inner_->alpn(); }
  bool is_tls() const noexcept override { return inner_->is_tls(); }
  bool has_buffered_input() const noexcept override { return inner_->has_buffered_input(); }
  std::size_t decrypted_input() const noexcept override { return inner_->decrypted_input(); }
  bool ended_without_close_notify() const noexcept override {
    return inner_->ended_without_close_notify();
  }
  bool resumed_session() const noexcept override { return inner_->resumed_session(); }
  bool offered_session() const noexcept override { return inner_->offered_session(); }
  int release_socket() noexcept override { return inner_->release_socket(); }

 private:
  void show(WireDirection direction, std::span<const std::byte> bytes) {
    tap_(WireChunk{conn_id_, direction, inner_->is_tls(), bytes});
  }

  std::unique_ptr<Transport> inner_;
  std::function<void(const WireChunk&)> tap_;
  std::uint64_t conn_id_;
};

}  // namespace

std::unique_ptr<Transport> make_wire_tap_transport(std::unique_ptr<Transport> inner,
                                                   std::function<void(const WireChunk&)> tap,
                                                   std::uint64_t conn_id) {
  return std::make_unique<WireTapTransport>(std::move(inner), std::move(tap), conn_id);
}

}  // namespace sluice
