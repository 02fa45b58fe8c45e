#include "http3/library_version.hpp"

#include <nghttp3/nghttp3.h>

namespace sluice {

std::vector<LibraryVersion> http3_library_versions() {
  return {{"nghttp3", nghttp3_version(0)->version_str}};
}

}  // namespace sluice
