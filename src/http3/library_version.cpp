#include "http3/library_version.hpp"

#include <nghttp3/nghttp3.h>

namespace sluice {

std::string http3_library_versions() {
  return std::string("nghttp3/") + nghttp3_version(0)->version_str;
}

}  // namespace sluice
