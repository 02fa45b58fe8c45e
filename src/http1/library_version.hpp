#pragma once
// The version of llhttp, which is compiled into sluice from its C sources, so the
// version in its header is the one that runs. client/library_versions.cpp joins every
// layer's. Pure function; any thread.

#include <vector>

#include "sluice/version.hpp"

namespace sluice {

/// e.g. {"llhttp", "8.1.0"}
std::vector<LibraryVersion> http1_library_versions();

}  // namespace sluice
