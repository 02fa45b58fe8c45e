#include "http2/library_version.hpp"

#include <nghttp2/nghttp2.h>

namespace sluice {

std::vector<LibraryVersion> http2_library_versions() {
  return {{"nghttp2", nghttp2_version(0)->version_str}};
}

}  // namespace sluice
