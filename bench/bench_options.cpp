// Option parsing for sluice-bench. Main thread only.

#include "bench/bench_options.hpp"

#include <charconv>
#include <cmath>
#include <cstdint>
#include <optional>

#include "sluice/url.hpp"

namespace sluice::bench {
namespace {

Error usage_error(std::string message) { return Error(ErrorCategory::usage, std::move(message)); }

const char* subcommand_name(Subcommand subcommand) {
  switch (subcommand) {
    case Subcommand::throughput: return "throughput";
    case Subcommand::held: return "held";
    case Subcommand::many: return "many";
    case Subcommand::upload_burst: return "upload-burst";
    case Subcommand::append_growth: return "append-growth";
    case Subcommand::download: return "download";
    case Subcommand::link: return "link";
    case Subcommand::resumption: return "resumption";
    case Subcommand::latency: return "latency";
  }
  return "?";
}

constexpr Subcommand kAllSubcommands[] = {
    Subcommand::throughput,   Subcommand::held,          Subcommand::many,
    Subcommand::upload_burst, Subcommand::append_growth, Subcommand::download,
    Subcommand::link,         Subcommand::resumption,    Subcommand::latency};

// A set of subcommands, for the options that apply to some only.
constexpr unsigned bit(Subcommand subcommand) { return 1u << static_cast<unsigned>(subcommand); }

// The subcommands that talk HTTP: the others (append-growth) measures
// the library locally, and a network option given to them is a mistake.
constexpr unsigned kNetworkSubcommands = bit(Subcommand::throughput) | bit(Subcommand::held) |
                                         bit(Subcommand::many) | bit(Subcommand::upload_burst) |
                                         bit(Subcommand::download) | bit(Subcommand::link) |
                                         bit(Subcommand::resumption) | bit(Subcommand::latency);
// The subcommands whose transfers may run through a delay link (--rtt): the others
// measure memory locally or against their own slow server, where a delay means nothing.
constexpr unsigned kLinkSubcommands = bit(Subcommand::throughput) | bit(Subcommand::held) |
                                      bit(Subcommand::many) | bit(Subcommand::download) |
                                      bit(Subcommand::link);
constexpr unsigned kSizedSubcommands =
    bit(Subcommand::upload_burst) | bit(Subcommand::append_growth);

// The version options: each names one VersionPolicy, and curl's option of that name.
std::optional<VersionPolicy> version_option(std::string_view name) {
  if (name == "--http1.1") return VersionPolicy::http1_only;
  if (name == "--http2") return VersionPolicy::http2;
  if (name == "--http2-prior-knowledge") return VersionPolicy::http2_prior_knowledge;
  if (name == "--http3") return VersionPolicy::http3;
  if (name == "--http3-only") return VersionPolicy::http3_only;
  return std::nullopt;
}

bool is_network_option(std::string_view name) {
  return name == "--url" || name == "--cacert" || name == "-k" || name == "--insecure" ||
         name == "--compressed" || name == "--initial-allowance" || name == "--max-allowance" ||
         version_option(name).has_value();
}

// A whole decimal number in [min, max]; anything else names the option.
Result<std::uint64_t> parse_number(std::string_view option, std::string_view text,
                                   std::uint64_t min, std::uint64_t max) {
  std::uint64_t value = 0;
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (text.empty() || ec != std::errc() || end != text.data() + text.size() || value < min ||
      value > max) {
    return usage_error(std::string(option) + ": expected a whole number from " +
                       std::to_string(min) + " to " + std::to_string(max) + ", got '" +
                       std::string(text) + "'");
  }
  return value;
}

// A byte count with an optional binary suffix: 65536, 64k, 64KiB, 1M, 1MiB.
Result<std::size_t> parse_bytes(std::string_view option, std::string_view text) {
  std::size_t digits = 0;
  while (digits < text.size() && text[digits] >= '0' && text[digits] <= '9') ++digits;
  std::string_view suffix = text.substr(digits);
  std::uint64_t unit = 1;
  if (suffix == "k" || suffix == "K" || suffix == "KiB") {
    unit = 1024;
  } else if (suffix == "m" || suffix == "M" || suffix == "MiB") {
    unit = 1024 * 1024;
  } else if (!suffix.empty()) {
    return usage_error(std::string(option) + ": unknown size suffix '" + std::string(suffix) +
                       "' (use a byte count, or K/KiB, M/MiB)");
  }
  Result<std::uint64_t> number =
      parse_number(option, text.substr(0, digits), 1, (std::uint64_t{1} << 40) / unit);
  if (!number) return std::move(number).error();
  return static_cast<std::size_t>(*number * unit);
}

// Milliseconds, fractions allowed (50, 0.5), from 0 to a minute.
Result<double> parse_milliseconds(std::string_view option, std::string_view text) {
  double value = -1;
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (text.empty() || ec != std::errc() || end != text.data() + text.size() ||
      !std::isfinite(value) || value < 0 || value > 60'000) {
    return usage_error(std::string(option) +
                       ": expected milliseconds from 0 to 60000 (e.g. 50 or 0.5), got '" +
                       std::string(text) + "'");
  }
  return value;
}

// Walks argv once. Owned by parse_bench_options for the duration of the call.
class Parser {
 public:
  Parser(Subcommand subcommand, int argc, const char* const* argv)
      : subcommand_(subcommand), argc_(argc), argv_(argv) {}

  Result<BenchOptions> run();

 private:
  Result<void> apply(std::string_view name, std::optional<std::string_view> inline_value);
  Result<void> apply_version(std::string_view name, VersionPolicy version);
  Result<void> apply_valued(std::string_view name, std::string_view value);
  Result<void> apply_counted(std::string_view name, std::string_view value);
  Result<void> apply_link(std::string_view name, std::string_view value);
  Result<void> apply_sized(std::string_view name, std::string_view value);
  Result<std::string_view> take_value(std::string_view name,
                                      std::optional<std::string_view> inline_value);
  Result<void> only_for(unsigned wanted, std::string_view name) const;
  Result<void> check_complete();
  void set_burst_defaults();

  Subcommand subcommand_;
  int argc_;
  const char* const* argv_;
  int index_ = 0;
  bool count_given_ = false;
  bool link_mbit_given_ = false;
  std::string version_given_;  // the version option seen so far, for the conflict message
  BenchOptions options_;
};

Result<BenchOptions> Parser::run() {
  while (index_ < argc_) {
    std::string_view arg = argv_[index_++];
    if (arg.size() < 2 || arg[0] != '-') {
      return usage_error("unexpected argument '" + std::string(arg) +
                         "' (give the URL with --url; try 'sluice-bench help')");
    }
    std::optional<std::string_view> inline_value;
    if (std::size_t eq = arg.find('='); arg.starts_with("--") && eq != std::string_view::npos) {
      inline_value = arg.substr(eq + 1);
      arg = arg.substr(0, eq);
    }
    Result<void> applied = apply(arg, inline_value);
    if (!applied) return std::move(applied).error();
    if (options_.show_help) return options_;
  }
  Result<void> complete = check_complete();
  if (!complete) return std::move(complete).error();
  return options_;
}

Result<void> Parser::apply(std::string_view name, std::optional<std::string_view> inline_value) {
  if (is_network_option(name)) {
    if (Result<void> ok = only_for(kNetworkSubcommands, name); !ok) return ok;
  }
  std::optional<VersionPolicy> version = version_option(name);
  bool* flag = nullptr;
  if (name == "-k" || name == "--insecure") flag = &options_.insecure;
  if (name == "--compressed") flag = &options_.compressed;
  if (name == "-h" || name == "--help") flag = &options_.show_help;
  if (name == "--no-sweep") {
    if (Result<void> ok = only_for(bit(Subcommand::held), name); !ok) return ok;
    flag = &options_.no_sweep;
  }
  if (name == "--copy") {
    if (Result<void> ok = only_for(bit(Subcommand::throughput), name); !ok) return ok;
    flag = &options_.copy_reads;
  }
  // A download stores the body as the server sent it; decoding would make the peers'
  // files (curl, wget and aria2c store it encoded) a different size.
  if (name == "--compressed" && subcommand_ == Subcommand::download) {
    return usage_error("--compressed does not apply to 'download' (files are stored as sent)");
  }
  if (flag != nullptr || version) {
    if (inline_value) return usage_error(std::string(name) + " takes no value");
    if (version) return apply_version(name, *version);
    *flag = true;
    return {};
  }
  Result<std::string_view> value = take_value(name, inline_value);
  if (!value) return std::move(value).error();
  return apply_valued(name, *value);
}

// Unlike curl, where the last version option wins, two different ones are refused:
// a benchmark must not quietly measure another protocol than the one asked for.
Result<void> Parser::apply_version(std::string_view name, VersionPolicy version) {
  if (!version_given_.empty() && version_given_ != name) {
    return usage_error(std::string(name) + " conflicts with " + version_given_ +
                       " (give at most one of --http1.1, --http2, --http2-prior-knowledge, "
                       "--http3, --http3-only)");
  }
  version_given_ = std::string(name);
  options_.version = version;
  return {};
}

Result<void> Parser::apply_valued(std::string_view name, std::string_view value) {
  if (name == "--url") {
    Result<Url> url = Url::parse(value);
    if (!url) return usage_error("--url: " + url.error().message());
    options_.url = std::string(value);
    return {};
  }
  if (name == "--cacert") {
    if (value.empty()) return usage_error("--cacert: expected a PEM file name");
    options_.ca_file = std::string(value);
    return {};
  }
  if (name == "--dir") {
    if (Result<void> ok = only_for(bit(Subcommand::download) | bit(Subcommand::resumption), name);
        !ok)
      return ok;
    if (value.empty()) return usage_error("--dir: expected a directory");
    options_.dir = std::string(value);
    return {};
  }
  if (name == "--mirror") {
    if (Result<void> ok = only_for(bit(Subcommand::download), name); !ok) return ok;
    if (value.empty()) return usage_error("--mirror: expected a URL");
    options_.mirrors.emplace_back(value);
    return {};
  }
  if (name == "--rtt" || name == "--link-mbit") return apply_link(name, value);
  return apply_sized(name, value);
}

// The byte counts (K/M suffixes), each valid for some subcommands only.
Result<void> Parser::apply_sized(std::string_view name, std::string_view value) {
  unsigned subcommands = 0;
  if (name == "--initial-allowance" || name == "--max-allowance") {
    subcommands = kNetworkSubcommands;
  } else if (name == "--size") {
    subcommands = kSizedSubcommands;
  } else if (name == "--read-first") {
    subcommands = bit(Subcommand::held);
  } else {
    return apply_counted(name, value);
  }
  if (Result<void> ok = only_for(subcommands, name); !ok) return ok;
  Result<std::size_t> parsed = parse_bytes(name, value);
  if (!parsed) return std::move(parsed).error();
  const std::size_t bytes = *parsed;
  if (name == "--initial-allowance") options_.initial_allowance = bytes;
  if (name == "--max-allowance") options_.max_allowance = bytes;
  if (name == "--size") options_.size = bytes;
  if (name == "--read-first") options_.read_first = bytes;
  return {};
}

Result<void> Parser::apply_link(std::string_view name, std::string_view value) {
  if (Result<void> ok = only_for(kLinkSubcommands, name); !ok) return ok;
  if (name == "--rtt") {
    Result<double> rtt = parse_milliseconds(name, value);
    if (!rtt) return std::move(rtt).error();
    options_.rtt_ms = *rtt;
    return {};
  }
  // Up to 100 Gbit/s: beyond, the link's own copying is the limit anyway.
  Result<std::uint64_t> mbit = parse_number(name, value, 0, 100'000);
  if (!mbit) return std::move(mbit).error();
  options_.link_mbit = *mbit;
  link_mbit_given_ = true;
  return {};
}

// The options that take a whole number, each valid for some subcommands only. An
// option may have a row per subcommand when its range differs between them.
struct Counted {
  std::string_view name;
  unsigned subcommands;  // bits of bit()
  std::uint64_t min, max;
};
constexpr Counted kCounted[] = {
    {"--runs",
     bit(Subcommand::throughput) | bit(Subcommand::many) | bit(Subcommand::download) |
         bit(Subcommand::resumption),
     1, 1000},
    {"--split", bit(Subcommand::download) | bit(Subcommand::resumption), 1, 16},
    {"--count", bit(Subcommand::held) | bit(Subcommand::upload_burst), 1, 10000},
    {"--reads", bit(Subcommand::held), 0, 1},
    {"--requests", bit(Subcommand::many), 1, 100'000'000},
    // latency times every request after the first, which opens the connection.
    {"--requests", bit(Subcommand::latency), 2, 1'000'000},
    {"--concurrency", bit(Subcommand::many), 1, 10000},
};

Result<void> Parser::apply_counted(std::string_view name, std::string_view value) {
  const Counted* row = nullptr;
  unsigned allowed = 0;  // every subcommand any row of this name applies to
  for (const Counted& counted : kCounted) {
    if (counted.name != name) continue;
    allowed |= counted.subcommands;
    if ((counted.subcommands & bit(subcommand_)) != 0) row = &counted;
  }
  if (allowed == 0) {
    return usage_error("unknown option '" + std::string(name) + "' (try 'sluice-bench help')");
  }
  if (Result<void> ok = only_for(allowed, name); !ok) return ok;
  Result<std::uint64_t> number = parse_number(name, value, row->min, row->max);
  if (!number) return std::move(number).error();
  if (name == "--runs") options_.runs = static_cast<int>(*number);
  if (name == "--count") options_.count = static_cast<std::size_t>(*number);
  if (name == "--reads") options_.reads_one_chunk = *number == 1;
  if (name == "--requests") options_.requests = static_cast<std::size_t>(*number);
  if (name == "--concurrency") options_.concurrency = static_cast<std::size_t>(*number);
  if (name == "--split") options_.split = static_cast<unsigned>(*number);
  count_given_ = count_given_ || name == "--count";
  return {};
}

Result<std::string_view> Parser::take_value(std::string_view name,
                                            std::optional<std::string_view> inline_value) {
  static constexpr std::string_view kValued[] = {
      "--url",       "--cacert",        "--initial-allowance", "--runs",  "--count", "--reads",
      "--size",      "--requests",      "--concurrency",       "--split", "--dir",   "--rtt",
      "--link-mbit", "--max-allowance", "--read-first",        "--mirror"};
  bool known = false;
  for (std::string_view valued : kValued) known = known || valued == name;
  if (!known) {
    return usage_error("unknown option '" + std::string(name) + "' (try 'sluice-bench help')");
  }
  if (inline_value) return *inline_value;
  if (index_ >= argc_) return usage_error(std::string(name) + " needs a value");
  return std::string_view(argv_[index_++]);
}

Result<void> Parser::only_for(unsigned wanted, std::string_view name) const {
  if ((wanted & bit(subcommand_)) != 0) return {};
  std::string names;
  for (Subcommand subcommand : kAllSubcommands) {
    if ((wanted & bit(subcommand)) == 0) continue;
    names += names.empty() ? "'" : "', '";
    names += subcommand_name(subcommand);
  }
  return usage_error(std::string(name) + " applies to " + names + "' only, not '" +
                     subcommand_name(subcommand_) + "'");
}

Result<void> Parser::check_complete() {
  if (options_.url.empty() && (bit(subcommand_) & kNetworkSubcommands) != 0 &&
      subcommand_ != Subcommand::upload_burst) {
    return usage_error(std::string(subcommand_name(subcommand_)) + ": --url URL is required");
  }
  if (subcommand_ == Subcommand::held && !count_given_) {
    return usage_error("held: --count N is required (how many responses to hold)");
  }
  if (subcommand_ == Subcommand::many && options_.requests == 0) {
    return usage_error("many: --requests N is required (how many requests in all)");
  }
  if (subcommand_ == Subcommand::many && options_.concurrency == 0) {
    return usage_error("many: --concurrency C is required (how many requests in flight)");
  }
  if (subcommand_ == Subcommand::link && !options_.rtt_ms) {
    return usage_error("link: --rtt MS is required (the link's round-trip time)");
  }
  if (link_mbit_given_ && !options_.rtt_ms) {
    return usage_error("--link-mbit needs --rtt (--rtt 0 gives a rate cap without delay)");
  }
  if (!options_.mirrors.empty() && options_.rtt_ms) {
    return usage_error("--mirror conflicts with --rtt (the delay link carries the URL only)");
  }
  if (options_.read_first > 0 && options_.reads_one_chunk) {
    return usage_error("--read-first conflicts with --reads 1 (give one of them)");
  }
  if (subcommand_ == Subcommand::latency && options_.requests == 0) options_.requests = 1000;
  if (options_.runs == 0) {
    options_.runs = subcommand_ == Subcommand::many         ? 1
                    : subcommand_ == Subcommand::resumption ? 5
                                                            : 3;
  }
  // Resumption needs connections after the first: a split of 1 would measure nothing.
  if (subcommand_ == Subcommand::resumption && options_.split < 2) options_.split = 8;
  set_burst_defaults();
  return {};
}

void Parser::set_burst_defaults() {
  constexpr std::size_t kMiB = 1024 * 1024;
  bool burst = subcommand_ == Subcommand::upload_burst;
  if (burst && options_.count == 0) options_.count = 300;
  if (burst && options_.size == 0) options_.size = kMiB;
  if (subcommand_ == Subcommand::append_growth && options_.size == 0) options_.size = 64 * kMiB;
}

}  // namespace

Result<BenchOptions> parse_bench_options(Subcommand subcommand, int argc, const char* const* argv) {
  return Parser(subcommand, argc, argv).run();
}

ClientOptions client_options(const BenchOptions& options) {
  ClientOptions client;
  client.tls.ca_file = options.ca_file;
  client.tls.insecure = options.insecure;
  return client;
}

Request make_request(const BenchOptions& options) {
  Request request = Request::get(options.url);
  request.version = options.version;
  request.decode.enabled = options.compressed;
  if (options.initial_allowance) request.allowance.initial_bytes = *options.initial_allowance;
  if (options.max_allowance) request.allowance.max_bytes = *options.max_allowance;
  // One given alone above the other's default moves that one too: a fixed allowance
  // of 1 MiB is `--initial-allowance 1M --max-allowance 1M`, and 1M alone still works.
  if (request.allowance.initial_bytes > request.allowance.max_bytes) {
    if (options.initial_allowance)
      request.allowance.max_bytes = request.allowance.initial_bytes;
    else
      request.allowance.initial_bytes = request.allowance.max_bytes;
  }
  return request;
}

const char* curl_version_option(VersionPolicy version) {
  switch (version) {
    case VersionPolicy::automatic: return nullptr;
    case VersionPolicy::http1_0: return "--http1.0";
    case VersionPolicy::http1_only: return "--http1.1";
    case VersionPolicy::http2: return "--http2";
    case VersionPolicy::http2_prior_knowledge: return "--http2-prior-knowledge";
    case VersionPolicy::http3: return "--http3";
    case VersionPolicy::http3_only: return "--http3-only";
  }
  return nullptr;
}

}  // namespace sluice::bench
