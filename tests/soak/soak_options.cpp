// Command-line parsing for sluice-soak. Main thread only.

#include "soak/soak_options.hpp"

#include <charconv>
#include <cstdlib>
#include <string_view>

namespace sluice::soak {
namespace {

Error usage_error(std::string message) {
  return Error(ErrorCategory::usage, "sluice-soak: " + std::move(message) + " (see --help)");
}

template <class Number>
Result<Number> parse_number(std::string_view name, std::string_view text, Number low) {
  Number value{};
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (ec != std::errc() || end != text.data() + text.size() || value < low) {
    return usage_error(std::string(name) + " needs a number >= " + std::to_string(low) + ", not '" +
                       std::string(text) + "'");
  }
  return value;
}

// Sets one option from its name and value; false for an unknown name.
Result<bool> set_option(SoakOptions& options, std::string_view name, std::string_view value) {
  if (name == "--seconds") {
    auto n = parse_number<int>(name, value, 1);
    if (!n) return n.error();
    options.seconds = *n;
  } else if (name == "--workers") {
    auto n = parse_number<int>(name, value, 1);
    if (!n) return n.error();
    options.workers = *n;
  } else if (name == "--seed") {
    auto n = parse_number<std::uint64_t>(name, value, 0);
    if (!n) return n.error();
    options.seed = *n;
  } else if (name == "--sample-seconds") {
    auto n = parse_number<int>(name, value, 1);
    if (!n) return n.error();
    options.sample_seconds = *n;
  } else if (name == "--max-growth-mib") {
    auto n = parse_number<int>(name, value, 1);
    if (!n) return n.error();
    options.max_growth_mib = *n;
  } else if (name == "--env") {
    options.env_file = std::string(value);
  } else {
    return false;
  }
  return true;
}

}  // namespace

const char* soak_usage() {
  return "usage: sluice-soak [--seconds N] [--workers N] [--seed N] [--env FILE]\n"
         "                   [--sample-seconds N] [--max-growth-mib N]\n"
         "Mixed HTTP/1.1, HTTP/2 and HTTP/3 traffic against the real test servers and\n"
         "in-process fault servers, with cancellations, slow and idle readers. Exits 1\n"
         "when an outcome was not the expected one or RSS grew more than allowed.\n"
         "  --seconds N         traffic time (default 600)\n"
         "  --workers N         request threads (default 8)\n"
         "  --seed N            base seed of the random mix (default 1)\n"
         "  --env FILE          servers' env file (default $SLUICE_TEST_ENV/env,\n"
         "                      written by tests/support/servers/start.sh)\n"
         "  --sample-seconds N  RSS sample interval (default 10)\n"
         "  --max-growth-mib N  allowed RSS growth, middle to last third (default 16)\n";
}

Result<SoakOptions> parse_soak_options(int argc, char** argv) {
  SoakOptions options;
  for (int i = 1; i < argc; ++i) {
    const std::string_view arg = argv[i];
    if (arg == "-h" || arg == "--help") {
      options.help = true;
      return options;
    }
    std::string_view name = arg;
    std::string_view value;
    if (const auto eq = arg.find('='); eq != std::string_view::npos) {
      name = arg.substr(0, eq);
      value = arg.substr(eq + 1);
    } else if (i + 1 < argc) {
      value = argv[++i];
    } else {
      return usage_error(std::string(arg) + " needs a value");
    }
    auto known = set_option(options, name, value);
    if (!known) return known.error();
    if (!*known) return usage_error("unknown option '" + std::string(name) + "'");
  }
  if (options.env_file.empty()) {
    const char* dir = std::getenv("SLUICE_TEST_ENV");
    if (dir == nullptr || *dir == '\0') {
      return usage_error(
          "no --env FILE and SLUICE_TEST_ENV is not set; start the servers "
          "with tests/support/servers/start.sh BUILD_DIR and pass "
          "--env BUILD_DIR/test-env/env");
    }
    options.env_file = std::string(dir) + "/env";
  }
  return options;
}

}  // namespace sluice::soak
