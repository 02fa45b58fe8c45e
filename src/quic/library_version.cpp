#include "quic/library_version.hpp"

#include <gnutls/gnutls.h>
#include <ngtcp2/ngtcp2.h>

namespace sluice {

std::vector<LibraryVersion> quic_library_versions() {
  return {{"ngtcp2", ngtcp2_version(0)->version_str}, {"GnuTLS", gnutls_check_version(nullptr)}};
}

}  // namespace sluice
