// man/sluice.1 against the parser, both ways: every option of every OptionSpec table
// has one .TP entry under OPTIONS whose tag names its long form and, beside it, its
// short one; every option an entry there names is one the parser knows; EXIT STATUS
// lists every code of src/cli/exit_codes.hpp. The page is hand-written, so this is
// what keeps an option added to a table from going undocumented. Failures name the
// option or the code.
#include <gtest/gtest.h>

#include <algorithm>
#include <fstream>
#include <iterator>
#include <map>
#include <regex>
#include <set>
#include <span>
#include <sstream>
#include <string>
#include <string_view>
#include <vector>

#include "cli/options/option_spec.hpp"

namespace sluice::cli {
namespace {

std::string read_text(const char* path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

// The lines after ".SH name" (the name quoted or not), up to the next .SH.
std::vector<std::string> section(const std::string& page, std::string_view name) {
  std::vector<std::string> lines;
  std::istringstream in(page);
  bool inside = false;
  for (std::string line; std::getline(in, line);) {
    if (line.starts_with(".SH")) {
      std::string title = line.substr(3);
      std::erase(title, '"');
      title.erase(0, std::min(title.find_first_not_of(' '), title.size()));
      inside = title == name;
    } else if (inside) {
      lines.push_back(line);
    }
  }
  return lines;
}

// The tag line of each .TP paragraph: the line after the .TP.
std::vector<std::string> tag_lines(const std::vector<std::string>& lines) {
  std::vector<std::string> tags;
  for (std::size_t i = 0; i + 1 < lines.size(); ++i) {
    if (lines[i] == ".TP" || lines[i].starts_with(".TP ")) tags.push_back(lines[i + 1]);
  }
  return tags;
}

// A tag line's words as man shows them: the macro (.B, .BR, .BI ...) dropped, quotes
// and font changes (\fB, \fI, \fR, \fP) removed, "\-" read as "-", commas as blanks.
std::vector<std::string> tag_words(std::string line) {
  if (line.starts_with('.')) line.erase(0, std::min(line.find(' '), line.size()));
  std::string shown;
  for (std::size_t i = 0; i < line.size(); ++i) {
    const char next = i + 1 < line.size() ? line[i + 1] : '\0';
    if (line[i] == '\\' && next == 'f') {
      i += 2;
    } else if (line[i] == '\\' && next == '-') {
      shown += '-';
      ++i;
    } else if (line[i] != '"') {
      shown += line[i] == ',' ? ' ' : line[i];
    }
  }
  std::istringstream words(shown);
  return {std::istream_iterator<std::string>(words), std::istream_iterator<std::string>()};
}

struct OptionEntry {
  std::string tag;                 // the tag line as written
  std::vector<std::string> names;  // "-o", "--output": the words that are options
};

// The entries under OPTIONS whose tag starts with an option. Other .TP tags (a list
// of values nested under an option) are not option entries. A lone "-" is a value
// (-C -), and "--progress=MODE" names --progress.
std::vector<OptionEntry> option_entries(const std::string& page) {
  std::vector<OptionEntry> entries;
  for (const std::string& tag : tag_lines(section(page, "OPTIONS"))) {
    const std::vector<std::string> words = tag_words(tag);
    if (words.empty() || !words.front().starts_with('-')) continue;
    OptionEntry entry{tag, {}};
    for (const std::string& word : words) {
      if (word.starts_with('-') && word != "-")
        entry.names.push_back(word.substr(0, word.find('=')));
    }
    entries.push_back(std::move(entry));
  }
  return entries;
}

std::string long_form(const OptionSpec& spec) { return "--" + std::string(spec.long_name); }
std::string short_form(const OptionSpec& spec) { return {'-', spec.short_name}; }

bool names(const OptionEntry& entry, const std::string& name) {
  return std::find(entry.names.begin(), entry.names.end(), name) != entry.names.end();
}

// Every name the parser takes ("--output", "-o"), with the option it belongs to.
std::map<std::string, const OptionSpec*> parser_names() {
  std::map<std::string, const OptionSpec*> known;
  for (std::span<const OptionSpec> table : all_option_tables()) {
    for (const OptionSpec& spec : table) {
      known[long_form(spec)] = &spec;
      if (spec.short_name != '\0') known[short_form(spec)] = &spec;
    }
  }
  return known;
}

TEST(ManPage, EveryParserOptionHasOneEntryNamingBothItsForms) {
  const std::vector<OptionEntry> entries = option_entries(read_text(SLUICE_MAN_PAGE));
  ASSERT_FALSE(entries.empty()) << SLUICE_MAN_PAGE << ": no option entries under .SH OPTIONS";
  for (std::span<const OptionSpec> table : all_option_tables()) {
    for (const OptionSpec& spec : table) {
      const std::string name = long_form(spec);
      auto naming = [&](const OptionEntry& entry) { return names(entry, name); };
      const auto entry = std::find_if(entries.begin(), entries.end(), naming);
      if (entry == entries.end()) {
        ADD_FAILURE() << name << ": the parser takes it, but no .TP entry under OPTIONS in "
                      << "man/sluice.1 names it";
        continue;
      }
      if (const auto count = std::count_if(entries.begin(), entries.end(), naming); count > 1) {
        ADD_FAILURE() << name << ": " << count << " entries under OPTIONS name it; keep one";
      }
      if (spec.short_name != '\0' && !names(*entry, short_form(spec))) {
        ADD_FAILURE() << name << ": its entry (" << entry->tag << ") does not name its short form "
                      << short_form(spec);
      }
    }
  }
}

TEST(ManPage, EveryOptionEntryNamesOptionsTheParserKnows) {
  const std::map<std::string, const OptionSpec*> known = parser_names();
  for (const OptionEntry& entry : option_entries(read_text(SLUICE_MAN_PAGE))) {
    for (const std::string& name : entry.names) {
      const auto spec = known.find(name);
      if (spec == known.end()) {
        ADD_FAILURE() << name << ": man/sluice.1 documents it (" << entry.tag
                      << "), but the parser knows no such option";
      } else if (!name.starts_with("--") && !names(entry, long_form(*spec->second))) {
        // "-i, --input-file" would teach a pairing the parser does not have.
        ADD_FAILURE() << name << ": its entry (" << entry.tag << ") does not name "
                      << long_form(*spec->second) << ", the option it is short for";
      }
    }
  }
}

// A bare "-" in roff may print as a hyphen (U+2010), which a shell does not take for a
// minus when the option is copied from the page.
TEST(ManPage, OptionEntriesWriteTheirDashesAsMinusSigns) {
  for (const OptionEntry& entry : option_entries(read_text(SLUICE_MAN_PAGE))) {
    for (std::size_t i = 0; i < entry.tag.size(); ++i) {
      if (entry.tag[i] == '-' && (i == 0 || entry.tag[i - 1] != '\\')) {
        ADD_FAILURE() << entry.names.front() << ": its tag (" << entry.tag
                      << ") has a '-' not written as '\\-'";
        break;
      }
    }
  }
}

TEST(ManPage, ExitStatusListsEveryExitCode) {
  // exit_codes.hpp's constants by value: every one is what main or exit_code_for()
  // returns for some failure.
  const std::string header = read_text(SLUICE_EXIT_CODES);
  std::map<int, std::string> codes;
  const std::regex constant(R"(inline constexpr int (kExit\w+) = (\d+);)");
  for (auto match = std::sregex_iterator(header.begin(), header.end(), constant);
       match != std::sregex_iterator(); ++match) {
    codes[std::stoi((*match)[2])] = (*match)[1];
  }
  ASSERT_FALSE(codes.empty()) << SLUICE_EXIT_CODES << ": no kExit constants found";

  std::set<int> listed;
  for (const std::string& tag : tag_lines(section(read_text(SLUICE_MAN_PAGE), "EXIT STATUS"))) {
    const std::vector<std::string> words = tag_words(tag);
    const auto digit = [](char c) { return c >= '0' && c <= '9'; };
    if (words.empty() || !std::all_of(words.front().begin(), words.front().end(), digit)) {
      ADD_FAILURE() << "EXIT STATUS: the tag '" << tag << "' is not a number";
      continue;
    }
    listed.insert(std::stoi(words.front()));
  }
  for (const auto& [code, name] : codes) {
    if (!listed.contains(code))
      ADD_FAILURE() << name << " (" << code << ") is not under EXIT STATUS";
  }
  for (int code : listed) {
    if (!codes.contains(code)) {
      ADD_FAILURE() << "EXIT STATUS lists " << code << ", which exit_codes.hpp does not define";
    }
  }
}

}  // namespace
}  // namespace sluice::cli
