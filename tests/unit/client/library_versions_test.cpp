// linked_libraries(): every library sluice runs on, each with the version it reports
// at run time, and library_versions() as curl writes them ("name/version").
#include <gtest/gtest.h>

#include <algorithm>
#include <cctype>
#include <string>
#include <vector>

#include "sluice/version.hpp"

namespace sluice {
namespace {

TEST(LibraryVersions, NameEveryLinkedLibraryWithADottedVersion) {
  const std::vector<LibraryVersion> libraries = linked_libraries();
  for (const char* name : {"OpenSSL", "zlib", "brotli", "zstd", "c-ares", "libidn2", "libpsl",
                           "llhttp", "nghttp2", "ngtcp2", "GnuTLS", "nghttp3"}) {
    const auto found =
        std::find_if(libraries.begin(), libraries.end(),
                     [&](const LibraryVersion& library) { return library.name == name; });
    ASSERT_NE(found, libraries.end()) << name << " is not listed";
    EXPECT_TRUE(!found->version.empty() &&
                std::isdigit(static_cast<unsigned char>(found->version[0])) &&
                found->version.find('.') != std::string::npos)
        << name << ": '" << found->version << "' is not a version";
    EXPECT_NE(library_versions().find(std::string(name) + "/" + found->version), std::string::npos)
        << library_versions();
  }
}

}  // namespace
}  // namespace sluice
