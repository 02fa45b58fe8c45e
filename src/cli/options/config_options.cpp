// -K/--config and -q/--disable: config files (config_file.hpp). The options only
// record what was asked; the command-line walker (cli_options.cpp) reads the file and
// puts its options where -K stood, and looks for -q itself, because -q counts only as
// the very first argument, before the default file would be read.
// Ownership: a constant table; its functions run on the main thread while parsing.

#include <array>
#include <string_view>

#include "cli/options/option_spec.hpp"

namespace sluice::cli {
namespace {

constexpr std::array<OptionSpec, 2> kOptions{{
    {'K', "config", true,
     [](ParseState& s, std::string_view path) -> Result<void> {
       s.config_to_read = std::string(path);
       return {};
     }},
    // Anywhere but first it is too late to skip the default file; curl ignores it too.
    {'q', "disable", false, [](ParseState&, std::string_view) -> Result<void> { return {}; }},
}};

}  // namespace

std::span<const OptionSpec> config_option_specs() { return kOptions; }

}  // namespace sluice::cli
