#include "io/transport.hpp"

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

}  // namespace sluice
