// The help rows against the parser, both ways, as man_page_test.cpp holds the man
// page: every option of every OptionSpec table has one row with the same short name
// and an argument exactly when it takes a value; every row names an option the parser
// knows; every category a row names exists. Then the --help listings made from them.
#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <span>
#include <string>
#include <string_view>

#include "cli/options/help/help_rows.hpp"
#include "cli/options/help/usage_text.hpp"
#include "cli/options/option_spec.hpp"

namespace sluice::cli {
namespace {

std::map<std::string_view, const HelpRow*> rows_by_name() {
  std::map<std::string_view, const HelpRow*> rows;
  for (const HelpRow& row : help_rows()) {
    EXPECT_TRUE(rows.emplace(row.long_name, &row).second)
        << "--" << row.long_name << ": two help rows; keep one";
  }
  return rows;
}

bool known_category(std::string_view name) {
  const auto categories = help_categories();
  return name == "important" || std::any_of(categories.begin(), categories.end(),
                                            [&](const HelpCategory& c) { return c.name == name; });
}

TEST(HelpRows, EveryParserOptionHasARowWithItsShortNameAndArgument) {
  const auto rows = rows_by_name();
  for (std::span<const OptionSpec> table : all_option_tables()) {
    for (const OptionSpec& spec : table) {
      const auto row = rows.find(spec.long_name);
      if (row == rows.end()) {
        ADD_FAILURE() << "--" << spec.long_name << ": the parser takes it, but no row in "
                      << "src/cli/options/help/help_rows.cpp describes it";
        continue;
      }
      EXPECT_EQ(row->second->short_name, spec.short_name)
          << "--" << spec.long_name << ": the help row's short name differs from the parser's";
      // -h takes its category only when one follows, so the parser reads it itself.
      if (spec.long_name != "help") {
        EXPECT_EQ(!row->second->argument.empty(), spec.takes_value)
            << "--" << spec.long_name
            << (spec.takes_value ? ": takes a value, but its row names no argument"
                                 : ": takes no value, but its row names an argument");
      }
    }
  }
}

TEST(HelpRows, EveryRowNamesAnOptionTheParserKnows) {
  for (const HelpRow& row : help_rows()) {
    bool known = false;
    for (std::span<const OptionSpec> table : all_option_tables()) {
      known = known || std::any_of(table.begin(), table.end(), [&](const OptionSpec& spec) {
                return spec.long_name == row.long_name;
              });
    }
    EXPECT_TRUE(known) << "--" << row.long_name
                       << ": help_rows.cpp describes it, but the parser knows no such option";
  }
}

TEST(HelpRows, RowsAreSortedOneLineEachAndInKnownCategories) {
  const auto rows = help_rows();
  for (std::size_t i = 1; i < rows.size(); ++i) {
    EXPECT_LT(rows[i - 1].long_name, rows[i].long_name)
        << "--" << rows[i].long_name << " is out of order (--help all lists the rows as written)";
  }
  for (const HelpRow& row : rows) {
    EXPECT_FALSE(row.description.empty()) << "--" << row.long_name << ": no description";
    EXPECT_EQ(row.description.find('\n'), std::string_view::npos)
        << "--" << row.long_name << ": a description is one line";
    EXPECT_FALSE(row.description.ends_with('.')) << "--" << row.long_name;
    EXPECT_FALSE(row.categories.empty()) << "--" << row.long_name << ": in no category";
    std::string_view rest = row.categories;
    while (!rest.empty()) {
      const std::size_t blank = rest.find(' ');
      const std::string_view name = rest.substr(0, blank);
      EXPECT_TRUE(known_category(name))
          << "--" << row.long_name << ": no category '" << name << "'";
      EXPECT_TRUE(in_category(row, name));
      rest = blank == std::string_view::npos ? std::string_view() : rest.substr(blank + 1);
    }
  }
}

TEST(HelpText, AllListsEveryOptionAndEachCategoryOnlyItsOwn) {
  const Result<std::string> all = help_text("all");
  ASSERT_TRUE(all);
  const Result<std::string> tls = help_text("tls");
  ASSERT_TRUE(tls);
  EXPECT_TRUE(tls->starts_with("Usage: sluice [options...] <url>\ntls: "));
  for (const HelpRow& row : help_rows()) {
    const std::string name = "--" + std::string(row.long_name) + ' ';
    EXPECT_NE(all->find(name), std::string::npos) << name << "is not in --help all";
    EXPECT_EQ(tls->find(name) != std::string::npos, in_category(row, "tls")) << name;
  }
}

TEST(HelpText, BareHelpShowsTheImportantOptionsAndTheWayToTheRest) {
  const Result<std::string> text = help_text("");
  ASSERT_TRUE(text);
  EXPECT_NE(text->find(" -o, --output <file> "), std::string::npos) << *text;
  EXPECT_EQ(text->find("--tls13-ciphers"), std::string::npos) << *text;
  EXPECT_NE(text->find("--help all"), std::string::npos) << *text;
}

TEST(HelpText, CategoryListsEveryCategoryAndEachHasOptions) {
  const Result<std::string> text = help_text("category");
  ASSERT_TRUE(text);
  for (const HelpCategory& category : help_categories()) {
    EXPECT_NE(text->find(' ' + std::string(category.name) + ' '), std::string::npos)
        << category.name;
    const auto rows = help_rows();
    EXPECT_TRUE(std::any_of(rows.begin(), rows.end(),
                            [&](const HelpRow& row) { return in_category(row, category.name); }))
        << category.name << ": no option is in it";
  }
}

TEST(HelpText, UnknownCategoryIsAUsageErrorNamingIt) {
  const Result<std::string> text = help_text("nosuch");
  ASSERT_FALSE(text);
  EXPECT_EQ(text.error().category(), ErrorCategory::usage);
  EXPECT_NE(text.error().message().find("'nosuch'"), std::string::npos);
}

}  // namespace
}  // namespace sluice::cli
