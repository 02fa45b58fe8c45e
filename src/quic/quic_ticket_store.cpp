// QuicTicketStore (see quic_ticket_store.hpp). Ownership: HTTP thread only.

#include "quic/quic_ticket_store.hpp"

#include <utility>

namespace sluice {

const QuicSavedSession* QuicTicketStore::find(const std::string& key) const {
  auto found = entries_.find(key);
  return found == entries_.end() ? nullptr : &found->second.saved;
}

void QuicTicketStore::store(const std::string& key, QuicSavedSession saved) {
  if (Entry* entry = slot(key)) entry->saved = std::move(saved);
}

std::vector<std::pair<std::string, QuicSavedSession>> QuicTicketStore::saved() const {
  std::vector<std::pair<std::string, QuicSavedSession>> out;
  for (const auto& [key, entry] : entries_) out.emplace_back(key, entry.saved);
  return out;
}

// The origin's entry, made (evicting the oldest) when new; nullptr when nothing is kept.
QuicTicketStore::Entry* QuicTicketStore::slot(const std::string& key) {
  if (capacity_ == 0) return nullptr;
  auto found = entries_.find(key);
  if (found == entries_.end()) {
    if (entries_.size() >= capacity_) {
      auto oldest = entries_.begin();
      for (auto it = entries_.begin(); it != entries_.end(); ++it) {
        if (it->second.stored < oldest->second.stored) oldest = it;
      }
      entries_.erase(oldest);
    }
    found = entries_.emplace(key, Entry{}).first;
  }
  found->second.stored = ++clock_;
  return &found->second;
}

}  // namespace sluice
