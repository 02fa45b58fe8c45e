// -f's relatives under curl's names: --fail-with-body (exit 22 on a status of 400
// or more, the body still written), --remove-on-error (a failed transfer leaves no
// partial -o file) and --max-filesize (a larger body fails with exit 63, before a
// byte is written when Content-Length says so).
// Ownership: constant tables; applied on main's thread.

#include <array>

#include "cli/option_spec.hpp"

namespace sluice::cli {
namespace {

const std::array<OptionSpec, 3> kFailureOptions = {{
    {'\0', "fail-with-body", false, [](ParseState& s, std::string_view) -> Result<void> {
       s.options.fail_with_body = true;
       return {};
     }},
    {'\0', "remove-on-error", false, [](ParseState& s, std::string_view) -> Result<void> {
       s.options.remove_on_error = true;
       return {};
     }},
    {'\0', "max-filesize", true, [](ParseState& s, std::string_view v) -> Result<void> {
       Result<std::uint64_t> size = parse_byte_count("--max-filesize", v);
       if (!size) return std::move(size).error();
       s.options.max_filesize = *size;
       return {};
     }},
}};

}  // namespace

std::span<const OptionSpec> failure_option_specs() { return kFailureOptions; }

}  // namespace sluice::cli
