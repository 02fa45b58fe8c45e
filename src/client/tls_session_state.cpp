#include "client/tls_session_state.hpp"

#include "tls/crypto_hash.hpp"

namespace sluice {
namespace {

// RFC 8446 section 4.6.1: a TLS 1.3 ticket lives at most 7 days. GnuTLS's session
// data does not say the server's lifetime, so a QUIC session gets this bound.
constexpr UnixSeconds kQuicSessionLifetime = 7 * 24 * 3600;

}  // namespace

std::string tls_settings_name(const TlsOptions& options) {
  // Each field ends with a NUL, which none may hold, so two settings never join alike.
  std::string all;
  for (const std::string* field :
       {&options.ca_file, &options.ca_path, &options.client_cert, &options.client_key,
        &options.tls12_ciphers, &options.tls13_ciphers, &options.pinned_public_key}) {
    all += *field;
    all += '\0';
  }
  all += options.insecure ? 'k' : '-';
  all += options.min_version == TlsVersion::v1_3 ? '3' : '2';
  all += options.max_version == TlsVersion::v1_3 ? '3' : '2';
  return hex_digest(HashAlgorithm::sha256, all).substr(0, 16);
}

void TlsSessionState::load(std::vector<TlsSessionFileEntry> entries, TlsSessionCache& tcp,
                           UnixSeconds wall_now) {
  for (TlsSessionFileEntry& entry : entries) {
    if (entry.expires <= wall_now) continue;
    if (entry.settings != settings_) {
      carried_.push_back(std::move(entry));
    } else if (entry.kind == TlsSessionFileEntry::Kind::tcp) {
      tcp.restore(entry.origin, entry.session);
    } else {
      waiting_quic_.push_back(std::move(entry));
    }
  }
}

void TlsSessionState::adopt_quic(QuicTicketStore& store, UnixSeconds wall_now) {
  for (TlsSessionFileEntry& entry : waiting_quic_) {
    if (entry.expires <= wall_now) continue;
    store.store(entry.origin, QuicSavedSession{std::move(entry.session),
                                               std::move(entry.transport_params), entry.expires});
  }
  waiting_quic_.clear();
}

std::string TlsSessionState::text(const TlsSessionCache& tcp, const QuicTicketStore* quic,
                                  UnixSeconds wall_now) const {
  std::vector<TlsSessionFileEntry> entries;
  for (const TlsSessionCache::Saved& saved : tcp.saved()) {
    entries.push_back(
        {TlsSessionFileEntry::Kind::tcp, settings_, saved.key, saved.expires, saved.der, ""});
  }
  if (quic != nullptr) {
    for (const auto& [key, saved] : quic->saved()) {
      const UnixSeconds expires =
          saved.expires != 0 ? saved.expires : wall_now + kQuicSessionLifetime;
      entries.push_back({TlsSessionFileEntry::Kind::quic, settings_, key, expires,
                         saved.session_data, saved.transport_params});
    }
  } else {
    entries.insert(entries.end(), waiting_quic_.begin(), waiting_quic_.end());
  }
  for (const TlsSessionFileEntry& entry : carried_) {
    if (entry.expires > wall_now) entries.push_back(entry);
  }
  return format_tls_session_file(entries);
}

}  // namespace sluice
