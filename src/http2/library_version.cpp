#include "http2/library_version.hpp"

#include <nghttp2/nghttp2.h>

namespace sluice {

std::string http2_library_versions() {
  return std::string("nghttp2/") + nghttp2_version(0)->version_str;
}

}  // namespace sluice
