#include "quic/library_version.hpp"

#include <gnutls/gnutls.h>
#include <ngtcp2/ngtcp2.h>

namespace sluice {

std::string quic_library_versions() {
  return std::string("ngtcp2/") + ngtcp2_version(0)->version_str + " GnuTLS/" +
         gnutls_check_version(nullptr);
}

}  // namespace sluice
