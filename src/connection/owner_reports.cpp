// OwnerReports: telling a ConnectionOwner each change once (see owner_reports.hpp).
//
// Ownership: HTTP thread only.

#include "connection/owner_reports.hpp"

#include <algorithm>

namespace sluice {

void OwnerReports::tell(Connection& conn, const OwnerView& now) {
  if (now.closed) {
    if (!told_closed_) {
      told_closed_ = true;
      owner_.on_connection_closed(conn);
    }
    return;
  }
  if (now.draining && !told_draining_) {
    told_draining_ = true;
    owner_.on_connection_available(conn);
    return;
  }
  // Set before the call: the owner may start exchanges from inside it.
  // Leaving the early phase is news even with every stream taken by early requests:
  // the owner learns the handshake completed (the pool ends its HTTP/3 attempt then).
  const bool left_early = told_early_ && !now.early;
  const bool more =
      left_early || (now.available > 0 && (now.available > told_available_ ||
                                           now.ended != told_ended_ || now.early != told_early_));
  told_available_ = now.available;
  told_ended_ = now.ended;
  told_early_ = now.early;
  if (more) owner_.on_connection_available(conn);
}

void OwnerReports::started(const OwnerView& now) {
  told_available_ = std::min(told_available_, now.available);
  told_ended_ = now.ended;
  told_early_ = now.early;
}

}  // namespace sluice
