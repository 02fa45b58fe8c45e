#pragma once
// The versions of libidn2 and libpsl, asked at run time, so they are the ones actually loaded.
// client/library_versions.cpp joins every layer's. Pure function; any thread.

#include <vector>

#include "sluice/version.hpp"

namespace sluice {

/// e.g. {"libidn2", "2.3.3"}, {"libpsl", "0.21.2"}
std::vector<LibraryVersion> web_library_versions();

}  // namespace sluice
