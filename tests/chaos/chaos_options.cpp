#include "chaos/chaos_options.hpp"

#include <unistd.h>

#include <charconv>
#include <cstdlib>
#include <filesystem>
#include <string_view>

namespace sluice::chaos {
namespace {

Error usage_error(std::string message) {
  return Error(ErrorCategory::usage, std::move(message));  // the usage text follows
}

Result<std::uint64_t> parse_count(std::string_view name, std::string_view text) {
  std::uint64_t value = 0;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (ec != std::errc() || end != text.data() + text.size()) {
    return usage_error(std::string(name) + " needs a whole number, not '" + std::string(text) +
                       "'");
  }
  return value;
}

// "download:I" or "fetch:I".
Result<void> parse_only(ChaosOptions& options, std::string_view text) {
  const auto colon = text.find(':');
  const std::string_view kind = text.substr(0, colon);
  if (colon == std::string_view::npos || (kind != "download" && kind != "fetch")) {
    return usage_error("--only needs download:INDEX or fetch:INDEX, not '" + std::string(text) +
                       "'");
  }
  auto index = parse_count("--only", text.substr(colon + 1));
  if (!index) return index.error();
  options.only_kind = std::string(kind);
  options.only_index = *index;
  return {};
}

Result<void> set_option(ChaosOptions& options, std::string_view name, std::string_view value) {
  if (name == "--env") {
    options.env_file = std::string(value);
  } else if (name == "--sluice") {
    options.sluice = std::string(value);
  } else if (name == "--scratch") {
    options.scratch = std::string(value);
  } else if (name == "--only") {
    return parse_only(options, value);
  } else if (name == "--expect") {
    options.expect = std::string(value);
  } else {
    auto n = parse_count(name, value);
    if (!n) return n.error();
    if (name == "--downloads") {
      options.downloads = *n;
    } else if (name == "--fetches") {
      options.fetches = *n;
    } else if (name == "--seed") {
      options.seed = *n;
    } else if (name == "--workers" && *n >= 1 && *n <= 64) {
      options.workers = static_cast<int>(*n);
    } else {
      return usage_error("unknown option or value: " + std::string(name));
    }
  }
  return {};
}

Result<void> fill_defaults(ChaosOptions& options, const char* argv0) {
  if (options.env_file.empty()) {
    const char* dir = std::getenv("SLUICE_TEST_ENV");
    if (dir == nullptr) {
      return usage_error(
          "no --env FILE and SLUICE_TEST_ENV is not set; start the servers "
          "with tests/support/servers/start.sh BUILD_DIR");
    }
    options.env_file = std::string(dir) + "/env";
  }
  if (options.sluice.empty()) {
    options.sluice = (std::filesystem::path(argv0).parent_path() / "sluice").string();
  }
  if (options.scratch.empty()) {
    options.scratch =
        (std::filesystem::temp_directory_path() / ("sluice-chaos-" + std::to_string(::getpid())))
            .string();
  }
  return {};
}

}  // namespace

const char* chaos_usage() {
  return "usage: sluice-chaos [--downloads N] [--fetches N] [--seed N] [--workers N]\n"
         "                    [--env FILE] [--sluice PATH] [--scratch DIR] [--verbose]\n"
         "                    [--only download:I|fetch:I [--expect OUTCOME]]\n";
}

Result<ChaosOptions> parse_chaos_options(int argc, char** argv) {
  ChaosOptions options;
  int next = 1;
  while (next < argc) {
    const std::string_view name = argv[next++];
    if (name == "--verbose") {
      options.verbose = true;
    } else if (next == argc) {
      return usage_error(std::string(name) + " needs a value");
    } else if (auto set = set_option(options, name, argv[next++]); !set) {
      return set.error();
    }
  }
  auto filled = fill_defaults(options, argv[0]);
  if (!filled) return filled.error();
  return options;
}

}  // namespace sluice::chaos
