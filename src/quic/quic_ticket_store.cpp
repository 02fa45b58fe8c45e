// QuicTicketStore (see quic_ticket_store.hpp). Ownership: HTTP thread only.

#include "quic/quic_ticket_store.hpp"

namespace sluice {

const std::string* QuicTicketStore::find(const std::string& key) const {
  auto found = entries_.find(key);
  return found == entries_.end() ? nullptr : &found->second.data;
}

void QuicTicketStore::store(const std::string& key, std::string session_data) {
  if (capacity_ == 0) return;
  auto found = entries_.find(key);
  if (found == entries_.end() && entries_.size() >= capacity_) {
    auto oldest = entries_.begin();
    for (auto it = entries_.begin(); it != entries_.end(); ++it) {
      if (it->second.stored < oldest->second.stored) oldest = it;
    }
    entries_.erase(oldest);
  }
  entries_[key] = Entry{std::move(session_data), ++clock_};
}

}  // namespace sluice
