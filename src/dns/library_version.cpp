#include "dns/library_version.hpp"

#include <ares.h>

namespace sluice {

std::vector<LibraryVersion> dns_library_versions() { return {{"c-ares", ares_version(nullptr)}}; }

}  // namespace sluice
