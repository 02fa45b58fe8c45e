#pragma once
// The one table `sluice --help` and the shell completions are made from: a row per
// option (its names, its argument, one line saying what it does, the categories it
// is listed under), and the categories as curl groups them. help_rows_test.cpp holds
// the rows to the parser's tables (all_option_tables()) both ways.
// Ownership: constants; any thread.

#include <span>
#include <string_view>

namespace sluice::cli {

struct HelpRow {
  char short_name;               // '\0' when the option has only a long name
  std::string_view long_name;    // without the leading "--"
  std::string_view argument;     // "<file>" as curl writes it; empty: takes no value
  std::string_view description;  // one line, no final full stop
  std::string_view categories;   // names from help_categories(), separated by blanks
};

struct HelpCategory {
  std::string_view name;
  std::string_view description;
};

/// Every option's row, sorted by long name (the order of `--help all`).
std::span<const HelpRow> help_rows();

/// The categories `--help category` lists, by name. "important" (what a bare --help
/// shows) and "all" are not among them, as in curl.
std::span<const HelpCategory> help_categories();

/// Whether `row` is listed under `category` ("all" lists every row).
bool in_category(const HelpRow& row, std::string_view category);

/// Whether the row's argument names a file or a directory (completions offer paths).
bool takes_path(const HelpRow& row);

}  // namespace sluice::cli
