// library_versions(): what `sluice --version` and bug reports name. Each layer asks
// the libraries it wraps for their run-time versions (its library_version.hpp), so
// no third-party header is needed here.

#include <string>

#include "decode/library_version.hpp"
#include "http2/library_version.hpp"
#include "http3/library_version.hpp"
#include "quic/library_version.hpp"
#include "sluice/version.hpp"
#include "tls/library_version.hpp"

namespace sluice {

std::string library_versions() {
  return http2_library_versions() + " " + quic_library_versions() + " " + http3_library_versions() +
         " " + tls_library_versions() + " " + decode_library_versions();
}

}  // namespace sluice
