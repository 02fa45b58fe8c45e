// -f's relatives under curl's names: --fail-with-body (exit 22 on a status of 400
// or more, the body still written), --remove-on-error (a failed transfer leaves no
// partial -o file), --max-filesize (a larger body fails with exit 63, before a
// byte is written when Content-Length says so), and the conditional fetch of
// --etag-save / --etag-compare and -z/--time-cond (a 304 leaves the output as it
// was), with -R/--remote-time, -z FILE's partner; and two curl retry options beside
// --retry (in download_options.cpp, whose table is long enough already):
// --retry-max-time and --retry-connrefused.
// Ownership: constant tables; applied on main's thread.

#include <array>

#include "cli/options/option_spec.hpp"

namespace sluice::cli {
namespace {

const std::array<OptionSpec, 9> kFailureOptions = {{
    {'\0', "fail-with-body", false,
     [](ParseState& s, std::string_view) -> Result<void> {
       s.options.fail_with_body = true;
       return {};
     }},
    {'\0', "remove-on-error", false,
     [](ParseState& s, std::string_view) -> Result<void> {
       s.options.remove_on_error = true;
       return {};
     }},
    {'\0', "max-filesize", true,
     [](ParseState& s, std::string_view v) -> Result<void> {
       Result<std::uint64_t> size = parse_byte_count("--max-filesize", v);
       if (!size) return std::move(size).error();
       s.options.max_filesize = *size;
       return {};
     }},
    {'\0', "etag-save", true,
     [](ParseState& s, std::string_view v) -> Result<void> {
       if (v.empty()) return usage_error("--etag-save: the file name is empty");
       s.options.etag_save = std::string(v);
       return {};
     }},
    {'\0', "etag-compare", true,
     [](ParseState& s, std::string_view v) -> Result<void> {
       if (v.empty()) return usage_error("--etag-compare: the file name is empty");
       s.options.etag_compare = std::string(v);
       return {};
     }},
    {'z', "time-cond", true,
     [](ParseState& s, std::string_view v) -> Result<void> {
       auto condition = read_time_condition(v);
       if (!condition) return std::move(condition).error();
       s.options.time_cond = *condition;
       return {};
     }},
    {'R', "remote-time", false,
     [](ParseState& s, std::string_view) -> Result<void> {
       s.options.remote_time = true;
       return {};
     }},
    {'\0', "retry-max-time", true,
     [](ParseState& s, std::string_view v) -> Result<void> {
       auto limit = parse_seconds("--retry-max-time", v);
       if (!limit) return std::move(limit).error();
       s.options.retry.max_time = *limit;
       return {};
     }},
    // --retry already retries every connection failure, a refused one included
    // (curl needs this option for those), so it asks for nothing more.
    {'\0', "retry-connrefused", false,
     [](ParseState&, std::string_view) -> Result<void> { return {}; }},
}};

}  // namespace

std::span<const OptionSpec> failure_option_specs() { return kFailureOptions; }

}  // namespace sluice::cli
