#include "cli/options/cli_options.hpp"

#include <sys/stat.h>
#include <sys/utsname.h>

#include <array>
#include <cctype>
#include <cerrno>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <string_view>
#include <utility>

#include "cli/options/option_spec.hpp"
#include "cli/options/syntax/config_file.hpp"
#include "cli/options/syntax/url_guess.hpp"
#include "sluice/version.hpp"

namespace sluice::cli {

Result<std::string> read_whole_file(std::string_view option, const std::string& path) {
  std::FILE* file = path == "-" ? stdin : std::fopen(path.c_str(), "rb");
  if (file == nullptr) {
    return Error(ErrorCategory::io,
                 std::string(option) + ": cannot read '" + path + "': " + std::strerror(errno));
  }
  std::string bytes;
  char chunk[16384];
  std::size_t got = 0;
  while ((got = std::fread(chunk, 1, sizeof chunk, file)) > 0) bytes.append(chunk, got);
  bool failed = std::ferror(file) != 0;
  int saved_errno = errno;
  if (file != stdin) std::fclose(file);
  if (failed) {
    return Error(ErrorCategory::io, std::string(option) + ": cannot read '" + path +
                                        "': " + std::strerror(saved_errno));
  }
  return bytes;
}

Result<std::chrono::milliseconds> parse_seconds(std::string_view option, std::string_view text) {
  double seconds = 0;
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), seconds);
  if (ec != std::errc() || end != text.data() + text.size() || !std::isfinite(seconds) ||
      seconds < 0 || seconds > 1e9) {
    return usage_error(std::string(option) + ": '" + std::string(text) +
                       "' is not a number of seconds (for example 2.5)");
  }
  // Round up so that a tiny positive value never becomes 0, which means "no limit".
  return std::chrono::milliseconds(static_cast<long long>(std::ceil(seconds * 1000.0)));
}

namespace {

const OptionSpec* find_long(std::string_view name) {
  for (std::span<const OptionSpec> table : all_option_tables()) {
    for (const OptionSpec& spec : table) {
      if (spec.long_name == name) return &spec;
    }
  }
  return nullptr;
}

const OptionSpec* find_short(char name) {
  for (std::span<const OptionSpec> table : all_option_tables()) {
    for (const OptionSpec& spec : table) {
      if (spec.short_name != '\0' && spec.short_name == name) return &spec;
    }
  }
  return nullptr;
}

Error unknown_option(std::string_view shown) {
  return usage_error("unknown option '" + std::string(shown) + "' (try 'sluice --help')");
}

Error missing_value(std::string_view shown) {
  return usage_error("option '" + std::string(shown) + "' needs a value (try 'sluice --help')");
}

// One argument to walk: from argv, or from a line of a config file.
struct Argument {
  std::string text;
  // "FILE:LINE" for a config file's line, empty on the command line: errors name the
  // line, and an option there takes its value only from its own line.
  std::string where;
  int depth = 0;  // config files deep (a file may -K another)
};

bool same_line(const Argument& a, const Argument& b) {
  return a.where == b.where && a.depth == b.depth;
}

Error located(Error error, const std::string& where) {
  if (where.empty()) return error;
  return Error(error.category(), where + ": " + error.message());
}

// A file that reads itself must stop somewhere.
constexpr int kMaxConfigDepth = 10;

// Walks the arguments once, left to right; next_ is the index of the next unread one.
// A config file's options are put in where its -K stood, as curl does, and the
// default file's before everything, so the command line overrides it.
class ArgumentWalker {
 public:
  ArgumentWalker(int argc, const char* const* argv) {
    for (int i = 1; i < argc; ++i) args_.push_back({argv[i], {}, 0});
  }

  Result<CliOptions> run() {
    if (Result<void> read = read_default_config(); !read) return std::move(read).error();
    while (next_ < args_.size()) {
      current_ = args_[next_++];  // a copy: reading a config file moves args_
      std::string_view arg = current_.text;
      Result<void> step = only_urls_ || arg.size() < 2 || arg.front() != '-' ? take_url(arg)
                          : arg == "--"                                      ? end_options()
                          : arg.starts_with("--")                            ? take_long(arg)
                                                                             : take_short(arg);
      if (step && (arg == "-h" || arg == "--help")) take_help_category();
      if (step && state_.config_to_read) {
        std::string path = *std::exchange(state_.config_to_read, std::nullopt);
        step = read_config("-K", path, current_.depth + 1);
      }
      if (step && !current_.where.empty() && value_follows()) {
        step = usage_error("'" + current_.text + "' takes no value ('" + args_[next_].text +
                           "' given)");
      }
      if (!step) return located(std::move(step).error(), current_.where);
    }
    if (Result<void> joined = join_data(); !joined) return std::move(joined).error();
    if (Result<void> globbed = expand_url_globs(state_.options); !globbed)
      return std::move(globbed).error();
    if (Result<void> body = check_body_options(state_.options); !body)
      return std::move(body).error();
    if (state_.options.fail_on_http_error && state_.options.fail_with_body) {
      return usage_error("-f and --fail-with-body contradict each other: choose one");
    }
    return std::move(state_.options);
  }

 private:
  // curl's rule: "-q" or "--disable" as the very first argument skips the default file.
  Result<void> read_default_config() {
    if (!args_.empty() && (args_[0].text == "-q" || args_[0].text == "--disable")) return {};
    std::string path = default_config_path(std::getenv("XDG_CONFIG_HOME"), std::getenv("HOME"));
    struct stat info {};
    if (path.empty() || ::stat(path.c_str(), &info) != 0) return {};  // none: nothing to read
    return read_config("the default config file", path, 1);
  }

  // Reads a config file ("-": stdin) and puts its options next in line.
  Result<void> read_config(std::string_view option, const std::string& path, int depth) {
    if (depth > kMaxConfigDepth) {
      return usage_error(std::string(option) + " " + path + ": config files nest more than " +
                         std::to_string(kMaxConfigDepth) + " deep (does one read itself?)");
    }
    Result<std::string> text = read_whole_file(option, path);
    if (!text) return std::move(text).error();
    const std::string name = path == "-" ? "<stdin>" : path;
    Result<std::vector<ConfigLine>> lines = parse_config_text(*text, name);
    if (!lines) return std::move(lines).error();
    std::vector<Argument> arguments;
    for (ConfigLine& line : *lines) {
      const std::string where = name + ":" + std::to_string(line.number);
      for (std::string& argument : line.arguments) {
        arguments.push_back({std::move(argument), where, depth});
      }
    }
    args_.insert(args_.begin() + static_cast<std::ptrdiff_t>(next_), arguments.begin(),
                 arguments.end());
    return {};
  }

  // curl's -h takes the next argument as its category when there is one ("--help
  // all"), yet needs none; an option after it is not a category.
  void take_help_category() {
    if (value_follows() && !args_[next_].text.starts_with('-')) {
      state_.options.help_category = args_[next_++].text;
    }
  }

  // The next argument, when it may be the value of the option being read.
  bool value_follows() const { return next_ < args_.size() && same_line(args_[next_], current_); }

  Result<void> end_options() {
    only_urls_ = true;
    return {};
  }

  Result<void> take_url(std::string_view arg) {
    state_.options.urls.push_back(with_guessed_scheme(arg));
    return {};
  }

  // "--name=value" gives a value too (--progress=line).
  Result<void> take_long(std::string_view arg) {
    if (std::size_t equals = arg.find('='); equals != std::string_view::npos) {
      const OptionSpec* spec = find_long(arg.substr(2, equals - 2));
      if (spec == nullptr) return unknown_option(arg.substr(0, equals));
      if (!spec->takes_value) {
        return usage_error("option '" + std::string(arg.substr(0, equals)) + "' takes no value");
      }
      return spec->apply(state_, arg.substr(equals + 1));
    }
    const OptionSpec* spec = find_long(arg.substr(2));
    if (spec == nullptr) return unknown_option(arg);
    if (!spec->takes_value) return spec->apply(state_, {});
    if (!value_follows()) return missing_value(arg);
    return spec->apply(state_, args_[next_++].text);
  }

  // "-sSL" is three flags; "-XPUT" and "-X PUT" both give -X its value.
  Result<void> take_short(std::string_view arg) {
    for (std::size_t i = 1; i < arg.size(); ++i) {
      const OptionSpec* spec = find_short(arg[i]);
      if (spec == nullptr) return unknown_option(std::string("-") + arg[i]);
      if (!spec->takes_value) {
        if (Result<void> step = spec->apply(state_, {}); !step) return step;
        continue;
      }
      if (i + 1 < arg.size()) return spec->apply(state_, arg.substr(i + 1));
      if (!value_follows()) return missing_value(std::string("-") + arg[i]);
      return spec->apply(state_, args_[next_++].text);
    }
    return {};
  }

  // curl joins several data values with '&' (--json pieces without). A streamed
  // --data-binary file cannot be joined without reading it into memory, which
  // --data-binary @FILE promises not to do; a --json file is read in to be joined.
  Result<void> join_data() {
    if (state_.data.empty()) return {};
    if (state_.data.size() == 1 && !state_.data.front().file.empty()) {
      state_.options.data_file = std::move(state_.data.front().file);
      return {};
    }
    std::string joined;
    for (DataItem& item : state_.data) {
      if (!item.file.empty() && item.json) {
        Result<std::string> bytes = read_whole_file("--json", item.file);
        if (!bytes) return std::move(bytes).error();
        item.bytes = std::move(*bytes);
        item.file.clear();
      }
      if (!item.file.empty()) {
        return usage_error("--data-binary @" + item.file +
                           " streams the file and cannot be combined with other "
                           "-d/--data-binary values");
      }
      if (!joined.empty() && !item.json) joined += '&';
      joined += item.bytes;
    }
    state_.options.data = std::move(joined);
    return {};
  }

  std::vector<Argument> args_;
  std::size_t next_ = 0;
  Argument current_;
  bool only_urls_ = false;
  ParseState state_;
};

}  // namespace

std::vector<std::span<const OptionSpec>> all_option_tables() {
  return {transfer_option_specs(), tls_option_specs(),      body_option_specs(),
          failure_option_specs(),  download_option_specs(), auth_option_specs(),
          cookie_option_specs(),   url_glob_option_specs(), request_option_specs(),
          redirect_option_specs(), config_option_specs(),   state_option_specs(),
          speed_option_specs(),    range_option_specs()};
}

Result<CliOptions> parse_command_line(int argc, const char* const* argv) {
  return ArgumentWalker(argc, argv).run();
}

// curl's first line: the command, the platform, then libsluice and every library it
// runs on with the version loaded ("sluice 0.1.0 (x86_64-linux) libsluice/0.1.0
// OpenSSL/3.0.11 ...").
std::string version_text() {
  std::string platform;
  if (struct utsname name{}; ::uname(&name) == 0) {
    platform = std::string(name.machine) + "-" + name.sysname;
    for (char& c : platform) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    platform = " (" + platform + ")";
  }
  return std::string("sluice ") + kVersion + platform + " libsluice/" + kVersion + " " +
         library_versions() +
         "\n"
         "Protocols: http https\n"
         "Features: alt-svc backpressure brotli deflate gzip HTTP1.1 HTTP2 HTTP3 IDN PSL TLS "
         "zstd\n";
}

}  // namespace sluice::cli
