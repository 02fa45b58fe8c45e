#pragma once
// What curl does with a URL typed without a scheme ("example.org/x",
// "127.0.0.1:8080/"): it assumes http://. The library's Url stays strict; the command
// guesses, as a curl user's fingers expect. Pure; any thread.

#include <string>
#include <string_view>

namespace sluice::cli {

/// `url` as is when it names a scheme ("...://"), else "http://" + url.
std::string with_guessed_scheme(std::string_view url);

}  // namespace sluice::cli
