// sluice --help: the help rows in curl 7.88's layout. Each row is one line: the names
// and argument in a column as wide as the listing needs (narrowed so that the lines
// stay within 80 columns where the descriptions allow), then the description.
// Ownership: pure functions; any thread.

#include "cli/options/help/usage_text.hpp"

#include <algorithm>
#include <vector>

#include "cli/options/help/help_rows.hpp"

namespace sluice::cli {

namespace {

constexpr std::string_view kUsageLine = "Usage: sluice [options...] <url>\n";
constexpr std::size_t kScreenWidth = 80;

// "-o, --output <file>" or "    --split <num>": the names column of one row.
std::string names_column(const HelpRow& row) {
  std::string names = row.short_name != '\0' ? std::string{'-', row.short_name, ',', ' '} : "    ";
  names += "--";
  names += row.long_name;
  if (!row.argument.empty()) {
    names += ' ';
    names += row.argument;
  }
  return names;
}

std::string rows_in(std::string_view category) {
  std::vector<const HelpRow*> rows;
  std::size_t widest_names = 0;
  std::size_t widest_description = 0;
  for (const HelpRow& row : help_rows()) {
    if (!in_category(row, category)) continue;
    rows.push_back(&row);
    widest_names = std::max(widest_names, names_column(row).size());
    widest_description = std::max(widest_description, row.description.size());
  }
  // Two blanks (before the names, between the columns) besides the two columns.
  const std::size_t room = kScreenWidth - std::min(kScreenWidth - 20, widest_description + 2);
  const std::size_t width = std::min(widest_names, room);
  std::string text;
  for (const HelpRow* row : rows) {
    std::string names = names_column(*row);
    names.resize(std::max(names.size(), width), ' ');
    text += ' ' + names + ' ' + std::string(row->description) + '\n';
  }
  return text;
}

std::string category_list() {
  std::string text;
  for (const HelpCategory& category : help_categories()) {
    std::string name(category.name);
    name.resize(std::max<std::size_t>(name.size(), 11), ' ');
    text += ' ' + name + ' ' + std::string(category.description) + '\n';
  }
  return text;
}

const HelpCategory* find_category(std::string_view name) {
  for (const HelpCategory& category : help_categories()) {
    if (category.name == name) return &category;
  }
  return nullptr;
}

}  // namespace

Result<std::string> help_text(std::string_view category) {
  std::string text(kUsageLine);
  if (category.empty() || category == "important") {
    return text + rows_in("important") +
           "\nThis is not the full help: the options are grouped into categories.\n"
           "Use \"--help category\" for the list of categories, and \"--help all\"\n"
           "(or man sluice) for every option.\n";
  }
  if (category == "all") return text + rows_in("all");
  if (category == "category") return text + category_list();
  const HelpCategory* found = find_category(category);
  if (found == nullptr) {
    return Error(ErrorCategory::usage, "--help: no category '" + std::string(category) +
                                           "' (try 'sluice --help category')");
  }
  return text + std::string(found->name) + ": " + std::string(found->description) + '\n' +
         rows_in(category);
}

}  // namespace sluice::cli
