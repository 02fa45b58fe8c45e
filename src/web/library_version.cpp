#include "web/library_version.hpp"

#include <idn2.h>
#include <libpsl.h>

namespace sluice {

std::vector<LibraryVersion> web_library_versions() {
  return {{"libidn2", idn2_check_version(nullptr)}, {"libpsl", psl_get_version()}};
}

}  // namespace sluice
