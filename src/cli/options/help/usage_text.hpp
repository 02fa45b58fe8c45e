#pragma once
// `sluice --help [CATEGORY]`, printed from the help rows (help_rows.hpp) as curl 7.88
// prints its own. Ownership: pure functions; any thread.

#include <string>
#include <string_view>

#include "sluice/error.hpp"

namespace sluice::cli {

/// The help for `category`: "" (a bare --help) the important options and a hint,
/// "all" every option, "category" the list of categories, else that category's
/// options. An unknown category is a usage error naming it.
Result<std::string> help_text(std::string_view category);

}  // namespace sluice::cli
