#include "http1/library_version.hpp"

#include <llhttp.h>

#include <string>

namespace sluice {

std::vector<LibraryVersion> http1_library_versions() {
  return {{"llhttp", std::to_string(LLHTTP_VERSION_MAJOR) + "." +
                         std::to_string(LLHTTP_VERSION_MINOR) + "." +
                         std::to_string(LLHTTP_VERSION_PATCH)}};
}

}  // namespace sluice
