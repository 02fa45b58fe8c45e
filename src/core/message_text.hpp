#pragma once
// Text for error messages a person reads: bytes from the network or the user shown
// safely, and long lists cut short. Used by every layer that words an Error.
// Pure functions: any thread.

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

namespace sluice {

/// `text` as it may appear inside quotes in a message: printable ASCII as is, other
/// bytes as \xHH, so a message never carries raw control bytes into a log or a
/// terminal and stays on one line.
std::string printable(std::string_view text);

/// The first `most` names joined with ", ", then " and N more" for the rest: enough
/// to recognise, say, a certificate by its names (a CDN's can carry hundreds).
std::string joined_names(const std::vector<std::string>& names, std::size_t most = 4);

}  // namespace sluice
