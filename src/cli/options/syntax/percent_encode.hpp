#pragma once
// Percent-encoding as --data-urlencode and -T's file name need it: every byte but
// RFC 3986's unreserved ones (A-Z a-z 0-9 - . _ ~) becomes %XX, a space too (%20).
// Pure; any thread.

#include <string>
#include <string_view>

namespace sluice::cli {

std::string percent_encoded(std::string_view text);

}  // namespace sluice::cli
