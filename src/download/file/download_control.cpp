#include "download/file/download_control.hpp"

#include <charconv>

#include "download/download_ranges.hpp"
#include "download/file/download_file.hpp"
#include "sluice/download.hpp"

namespace sluice {
namespace {

constexpr std::string_view kVersionLine = "sluice-download-control 1";
constexpr std::size_t kMaxControlBytes = 64 * 1024;

// Splits text into lines; the last one must end with '\n' (a cut file is corrupt).
struct LineReader {
  std::string_view rest;
  int number = 0;

  std::optional<std::string_view> next() {
    const std::size_t newline = rest.find('\n');
    if (newline == std::string_view::npos) return std::nullopt;
    std::string_view line = rest.substr(0, newline);
    rest.remove_prefix(newline + 1);
    ++number;
    return line;
  }
};

// "key value": the value when the line starts with `key` and a space (or is `key`).
std::optional<std::string_view> field(std::string_view line, std::string_view key) {
  if (line == key) return std::string_view();
  if (line.size() <= key.size() || line.substr(0, key.size()) != key || line[key.size()] != ' ') {
    return std::nullopt;
  }
  return line.substr(key.size() + 1);
}

std::optional<RangeSpec> parse_range(std::string_view value) {
  const std::size_t first = value.find(' ');
  if (first == std::string_view::npos) return std::nullopt;
  const std::size_t second = value.find(' ', first + 1);
  if (second == std::string_view::npos) return std::nullopt;
  RangeSpec range;
  auto start = parse_decimal(value.substr(0, first));
  auto done = parse_decimal(value.substr(second + 1));
  const std::string_view end = value.substr(first + 1, second - first - 1);
  if (!start || !done) return std::nullopt;
  range.start = *start;
  range.done = *done;
  if (end != "-") {
    range.end = parse_decimal(end);
    if (!range.end || *range.end < range.start || range.done > *range.end - range.start) {
      return std::nullopt;
    }
  }
  return range;
}

// Ranges in order, not overlapping, inside the size; an unknown size has one open range.
bool ranges_fit(const ControlFile& control) {
  if (control.ranges.empty()) return false;
  if (!control.size) return control.ranges.size() == 1 && !control.ranges[0].end;
  std::uint64_t previous_end = 0;
  for (const auto& range : control.ranges) {
    if (!range.end || range.start < std::max(previous_end, control.origin) ||
        *range.end > *control.size) {
      return false;
    }
    previous_end = *range.end;
  }
  return true;
}

}  // namespace

std::string control_file_path(std::string_view path) { return std::string(path) + ".sluice"; }

std::string format_control(const ControlFile& control) {
  std::string text(kVersionLine);
  text += "\nurl " + control.url;
  text += "\nsize " + (control.size ? std::to_string(*control.size) : std::string("-"));
  text += "\nvalidator";
  if (!control.validator.empty()) text += " " + control.validator;
  // Only a range download has the line, so other files read as they always did.
  if (control.origin > 0) text += "\norigin " + std::to_string(control.origin);
  for (const auto& range : control.ranges) {
    text += "\nrange " + std::to_string(range.start) + " " +
            (range.end ? std::to_string(*range.end) : std::string("-")) + " " +
            std::to_string(range.done);
  }
  text += "\nend\n";
  return text;
}

Result<ControlFile> parse_control(std::string_view text, std::string_view name) {
  LineReader lines{text};
  const auto corrupt = [&](std::string_view why) {
    return Error(ErrorCategory::io, "download: control file '" + std::string(name) +
                                        "' is not usable (line " + std::to_string(lines.number) +
                                        ": " + std::string(why) +
                                        "); remove it to download from the start");
  };
  if (lines.next() != kVersionLine) return corrupt("not a sluice control file of version 1");
  ControlFile control;
  auto url = lines.next();
  auto url_value = url ? field(*url, "url") : std::nullopt;
  if (!url_value || url_value->empty()) return corrupt("expected 'url URL'");
  control.url = std::string(*url_value);
  auto size = lines.next();
  auto size_value = size ? field(*size, "size") : std::nullopt;
  if (!size_value) return corrupt("expected 'size N'");
  if (*size_value != "-") {
    control.size = parse_decimal(*size_value);
    if (!control.size) return corrupt("the size is not a number");
  }
  auto validator = lines.next();
  auto validator_value = validator ? field(*validator, "validator") : std::nullopt;
  if (!validator_value) return corrupt("expected 'validator VALUE'");
  control.validator = std::string(*validator_value);
  for (;;) {
    auto line = lines.next();
    if (!line) return corrupt("the file ends before its 'end' line");
    if (*line == "end") break;
    if (auto origin = field(*line, "origin"); origin && control.ranges.empty()) {
      auto value = parse_decimal(*origin);
      if (!value) return corrupt("the origin is not a number");
      control.origin = *value;
      continue;
    }
    auto range_value = field(*line, "range");
    auto range = range_value ? parse_range(*range_value) : std::nullopt;
    if (!range) return corrupt("expected 'range START END DONE'");
    control.ranges.push_back(*range);
  }
  if (!lines.rest.empty()) return corrupt("text after the 'end' line");
  if (!ranges_fit(control)) return corrupt("the ranges do not fit the size");
  return control;
}

Result<void> save_control(const std::string& path, const ControlFile& control) {
  return replace_file(path, format_control(control));
}

Result<std::optional<ControlFile>> load_control(const std::string& path) {
  auto text = read_small_file(path, kMaxControlBytes);
  if (!text) return std::move(text).error();
  if (!*text) return std::optional<ControlFile>();
  auto control = parse_control(**text, path);
  if (!control) return std::move(control).error();
  return std::optional<ControlFile>(std::move(*control));
}

Result<void> remove_control(const std::string& path) { return remove_file(path); }

}  // namespace sluice
