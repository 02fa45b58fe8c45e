// The options that make a request's body, under curl's names: -d, --data-binary,
// --data-raw, --data-urlencode, --json, -F, --form-string, -G and -T. Values are
// checked here (an unreadable file fails before any transfer, exit 26); files that
// are sent whole (--data-binary @FILE, -F name=@FILE, -T FILE) are only opened to
// check, and stream from disk when the request is sent.
// Ownership: constant tables and pure functions; main thread.

#include <sys/stat.h>

#include <algorithm>
#include <array>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <string>
#include <string_view>

#include "cli/options/option_spec.hpp"
#include "cli/options/syntax/percent_encode.hpp"

namespace sluice::cli {

Result<void> add_data(ParseState& state, std::string_view option, std::string_view text) {
  DataItem item;
  if (!text.empty() && text.front() == '@') {
    // As curl: a file's line breaks are dropped, as a form's would be.
    Result<std::string> bytes = read_whole_file(option, std::string(text.substr(1)));
    if (!bytes) return std::move(bytes).error();
    for (char c : *bytes) {
      if (c != '\r' && c != '\n') item.bytes += c;
    }
  } else {
    item.bytes = std::string(text);
  }
  state.data.push_back(std::move(item));
  return {};
}

namespace {

Error unreadable(std::string_view option, const std::string& path) {
  return Error(ErrorCategory::io,
               std::string(option) + ": cannot read '" + path + "': " + std::strerror(errno));
}

// A regular file that can be opened: it will stream. Anything else (stdin, a pipe)
// has no size to announce.
Result<bool> streamable_file(std::string_view option, const std::string& path) {
  struct stat info {};
  if (path == "-" || ::stat(path.c_str(), &info) != 0 || !S_ISREG(info.st_mode)) return false;
  std::FILE* probe = std::fopen(path.c_str(), "rb");
  if (probe == nullptr) return unreadable(option, path);
  std::fclose(probe);
  return true;
}

}  // namespace

Result<void> add_binary_data(ParseState& state, std::string_view option, std::string_view text,
                             bool json) {
  DataItem item;
  item.json = json;
  if (text.empty() || text.front() != '@') {
    item.bytes = std::string(text);
  } else {
    std::string path(text.substr(1));
    Result<bool> streams = streamable_file(option, path);
    if (!streams) return std::move(streams).error();
    if (*streams) {
      item.file = std::move(path);
    } else {
      Result<std::string> bytes = read_whole_file(option, path);
      if (!bytes) return std::move(bytes).error();
      item.bytes = std::move(*bytes);
    }
  }
  state.data.push_back(std::move(item));
  return {};
}

namespace {

// curl's five forms: "content", "=content", "name=content", "@file", "name@file";
// the content (or the file's bytes) is percent-encoded, the name is not.
Result<void> apply_data_urlencode(ParseState& state, std::string_view text) {
  const std::size_t equals = text.find('=');
  const std::size_t at = text.find('@');
  std::string name;
  std::string content;
  if (equals != std::string_view::npos && (at == std::string_view::npos || equals < at)) {
    name = std::string(text.substr(0, equals));
    content = std::string(text.substr(equals + 1));
  } else if (at != std::string_view::npos) {
    name = std::string(text.substr(0, at));
    Result<std::string> bytes =
        read_whole_file("--data-urlencode", std::string(text.substr(at + 1)));
    if (!bytes) return std::move(bytes).error();
    content = std::move(*bytes);
  } else {
    content = std::string(text);
  }
  DataItem item;
  item.bytes = name.empty() ? percent_encoded(content) : name + "=" + percent_encoded(content);
  state.data.push_back(std::move(item));
  return {};
}

// --json: the data as --data-binary takes it, and JSON's headers.
Result<void> apply_json(ParseState& state, std::string_view text) {
  state.options.json = true;
  return add_binary_data(state, "--json", text, true);
}

// A "..." value with backslash escapes, as curl takes file names holding ';' or ','.
std::string_view take_quoted(std::string_view& rest, std::string& into) {
  std::size_t i = 1;
  for (; i < rest.size() && rest[i] != '"'; ++i) {
    if (rest[i] == '\\' && i + 1 < rest.size()) ++i;
    into += rest[i];
  }
  rest.remove_prefix(std::min(i + 1, rest.size()));
  return into;
}

// "content;type=T;filename=N": the content, then the modifiers curl knows.
Result<void> split_modifiers(std::string_view text, std::string& content, FormPart& part) {
  std::string_view rest = text;
  if (rest.starts_with('"')) {
    take_quoted(rest, content);
  } else {
    const std::size_t semicolon = std::min(rest.find(';'), rest.size());
    content = std::string(rest.substr(0, semicolon));
    rest.remove_prefix(semicolon);
  }
  while (!rest.empty()) {
    if (rest.front() != ';') return usage_error("-F: unexpected text '" + std::string(rest) + "'");
    rest.remove_prefix(1);
    const std::size_t equals = rest.find('=');
    if (equals == std::string_view::npos) {
      return usage_error("-F: '" + std::string(rest) + "' is not type=... or filename=...");
    }
    const std::string_view key = rest.substr(0, equals);
    rest.remove_prefix(equals + 1);
    std::string value;
    if (rest.starts_with('"')) {
      take_quoted(rest, value);
    } else {
      const std::size_t end = std::min(rest.find(';'), rest.size());
      value = std::string(rest.substr(0, end));
      rest.remove_prefix(end);
    }
    if (key == "type") {
      part.type = std::move(value);
    } else if (key == "filename") {
      part.filename = std::move(value);
    } else {
      return usage_error("-F: unknown modifier '" + std::string(key) +
                         "' (sluice knows type= and filename=)");
    }
  }
  return {};
}

Result<void> apply_form(ParseState& state, std::string_view text, bool literal) {
  const std::string_view option = literal ? "--form-string" : "-F";
  const std::size_t equals = text.find('=');
  if (equals == std::string_view::npos || equals == 0) {
    return usage_error(std::string(option) + " '" + std::string(text) + "': expected NAME=VALUE");
  }
  FormPart part;
  part.name = std::string(text.substr(0, equals));
  std::string_view value = text.substr(equals + 1);
  if (literal) {
    part.value = std::string(value);
    state.options.form.push_back(std::move(part));
    return {};
  }
  const char kind = value.empty() ? '\0' : value.front();
  if (kind == '@' || kind == '<') value.remove_prefix(1);
  std::string content;
  if (Result<void> split = split_modifiers(value, content, part); !split) return split;
  if (kind == '@') {
    Result<bool> streams = streamable_file("-F", content);
    if (!streams) return std::move(streams).error();
    if (!*streams) {
      return Error(ErrorCategory::io, "-F: '" + content + "' is not a regular file to upload");
    }
    part.file = std::move(content);
  } else if (kind == '<') {
    Result<std::string> bytes = read_whole_file("-F", content);
    if (!bytes) return std::move(bytes).error();
    part.value = std::move(*bytes);
  } else {
    part.value = std::move(content);
  }
  state.options.form.push_back(std::move(part));
  return {};
}

Result<void> apply_upload_file(ParseState& state, std::string_view text) {
  if (text.empty()) return usage_error("-T: the file name is empty (use - for stdin)");
  const std::string path(text);
  if (path != "-") {
    Result<bool> streams = streamable_file("-T", path);
    if (!streams) return std::move(streams).error();
    if (!*streams) return Error(ErrorCategory::io, "-T: '" + path + "' is not a regular file");
  }
  state.options.upload_file = path;
  return {};
}

const std::array<OptionSpec, 8> kBodyOptions = {{
    {'\0', "data-ascii", true,
     [](ParseState& s, std::string_view v) { return add_data(s, "--data-ascii", v); }},
    {'\0', "data-raw", true,
     [](ParseState& s, std::string_view v) -> Result<void> {
       s.data.push_back(DataItem{std::string(v), {}, false});
       return {};
     }},
    {'\0', "data-urlencode", true, apply_data_urlencode},
    {'\0', "json", true, apply_json},
    {'F', "form", true, [](ParseState& s, std::string_view v) { return apply_form(s, v, false); }},
    {'\0', "form-string", true,
     [](ParseState& s, std::string_view v) { return apply_form(s, v, true); }},
    {'G', "get", false,
     [](ParseState& s, std::string_view) -> Result<void> {
       s.options.data_in_query = true;
       return {};
     }},
    {'T', "upload-file", true, apply_upload_file},
}};

// "URL" + "?data" (or "&data" when it has a query), before any fragment.
std::string with_query_data(const std::string& url, const std::string& data) {
  const std::size_t hash = std::min(url.find('#'), url.size());
  const std::string base = url.substr(0, hash);
  const char glue = base.find('?') == std::string::npos ? '?' : '&';
  return base + (data.empty() ? std::string() : glue + data) + url.substr(hash);
}

}  // namespace

Result<void> check_body_options(CliOptions& options) {
  const bool data = options.data.has_value() || !options.data_file.empty();
  if (!options.form.empty() && data) {
    return usage_error(
        "-F sends a multipart form and -d/--data-binary/--json a urlencoded or "
        "raw body: use one of them");
  }
  if (!options.upload_file.empty() && (data || !options.form.empty())) {
    return usage_error("-T uploads a file as the body: it cannot be combined with -d or -F");
  }
  if (options.data_in_query) {
    if (!options.data_file.empty()) {
      return usage_error("-G puts the data into the URL: --data-binary @" + options.data_file +
                         " streams a file and cannot go there");
    }
    if (!options.form.empty() || !options.upload_file.empty()) {
      return usage_error("-G puts -d data into the URL: it cannot be combined with -F or -T");
    }
    if (options.data) {
      for (std::string& url : options.urls) url = with_query_data(url, *options.data);
      options.data.reset();
    }
  }
  if (options.head_only && options.has_body()) {
    return usage_error("-I sends a HEAD request, which carries no body (-d, -F, -T)");
  }
  return {};
}

std::span<const OptionSpec> body_option_specs() { return kBodyOptions; }

}  // namespace sluice::cli
