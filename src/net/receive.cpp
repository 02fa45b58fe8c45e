#include "net/transport.hpp"

namespace sluice {

Result<IoStatus> receive_into(Transport& transport, ByteQueue& into, std::size_t limit) {
  while (into.size() < limit) {
    const std::size_t want = limit - into.size();
    auto outcome = transport.read(into.prepare(want).first(want));
    if (!outcome) return std::move(outcome).error();
    if (outcome->status != IoStatus::done) return outcome->status;
    into.commit(outcome->bytes);
  }
  return IoStatus::done;
}

Result<IoOutcome> receive_into(Transport& transport, std::span<std::byte> into) {
  IoOutcome received;
  while (received.bytes < into.size()) {
    auto outcome = transport.read(into.subspan(received.bytes));
    if (!outcome) return std::move(outcome).error();
    if (outcome->status != IoStatus::done) {
      received.status = outcome->status;
      return received;
    }
    received.bytes += outcome->bytes;
  }
  return received;
}

}  // namespace sluice
