// linked_libraries(): what `sluice --version` and bug reports name. Each layer asks
// the libraries it wraps for their run-time versions (its library_version.hpp), so
// no third-party header is needed here.

#include <string>
#include <vector>

#include "decode/library_version.hpp"
#include "dns/library_version.hpp"
#include "http1/library_version.hpp"
#include "http2/library_version.hpp"
#include "http3/library_version.hpp"
#include "quic/library_version.hpp"
#include "sluice/version.hpp"
#include "tls/library_version.hpp"
#include "web/library_version.hpp"

namespace sluice {

// In curl's order: TLS, compression, names, then the protocols.
std::vector<LibraryVersion> linked_libraries() {
  std::vector<LibraryVersion> all;
  for (std::vector<LibraryVersion> layer :
       {tls_library_versions(), decode_library_versions(), dns_library_versions(),
        web_library_versions(), http1_library_versions(), http2_library_versions(),
        quic_library_versions(), http3_library_versions()}) {
    all.insert(all.end(), layer.begin(), layer.end());
  }
  return all;
}

std::string library_versions() {
  std::string words;
  for (const LibraryVersion& library : linked_libraries()) {
    if (!words.empty()) words += ' ';
    words += library.name + '/' + library.version;
  }
  return words;
}

}  // namespace sluice
