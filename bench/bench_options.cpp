// Option parsing for sluice-bench. Main thread only.

#include "bench/bench_options.hpp"

#include <charconv>
#include <cstdint>
#include <optional>

#include "sluice/url.hpp"

namespace sluice::bench {
namespace {

Error usage_error(std::string message) {
  return Error(ErrorCategory::usage, std::move(message));
}

const char* subcommand_name(Subcommand subcommand) {
  return subcommand == Subcommand::throughput ? "throughput" : "held";
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

// Walks argv once. Owned by parse_bench_options for the duration of the call.
class Parser {
 public:
  Parser(Subcommand subcommand, int argc, const char* const* argv)
      : subcommand_(subcommand), argc_(argc), argv_(argv) {}

  Result<BenchOptions> run();

 private:
  Result<void> apply(std::string_view name, std::optional<std::string_view> inline_value);
  Result<void> apply_valued(std::string_view name, std::string_view value);
  Result<std::string_view> take_value(std::string_view name,
                                      std::optional<std::string_view> inline_value);
  Result<void> only_for(Subcommand wanted, std::string_view name) const;
  Result<void> check_complete() const;

  Subcommand subcommand_;
  int argc_;
  const char* const* argv_;
  int index_ = 0;
  bool count_given_ = false;
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
  bool* flag = nullptr;
  if (name == "--http1.1") flag = &options_.http1_only;
  if (name == "-k" || name == "--insecure") flag = &options_.insecure;
  if (name == "--compressed") flag = &options_.compressed;
  if (name == "-h" || name == "--help") flag = &options_.show_help;
  if (flag != nullptr) {
    if (inline_value) return usage_error(std::string(name) + " takes no value");
    *flag = true;
    return {};
  }
  Result<std::string_view> value = take_value(name, inline_value);
  if (!value) return std::move(value).error();
  return apply_valued(name, *value);
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
  if (name == "--mark") {
    Result<std::size_t> mark = parse_bytes(name, value);
    if (!mark) return std::move(mark).error();
    options_.mark = *mark;
    return {};
  }
  if (name == "--runs") {
    if (Result<void> ok = only_for(Subcommand::throughput, name); !ok) return ok;
    Result<std::uint64_t> runs = parse_number(name, value, 1, 1000);
    if (!runs) return std::move(runs).error();
    options_.runs = static_cast<int>(*runs);
    return {};
  }
  if (name == "--count") {
    if (Result<void> ok = only_for(Subcommand::held, name); !ok) return ok;
    Result<std::uint64_t> count = parse_number(name, value, 1, 10000);
    if (!count) return std::move(count).error();
    options_.count = static_cast<std::size_t>(*count);
    count_given_ = true;
    return {};
  }
  if (name == "--reads") {
    if (Result<void> ok = only_for(Subcommand::held, name); !ok) return ok;
    Result<std::uint64_t> reads = parse_number(name, value, 0, 1);
    if (!reads) return std::move(reads).error();
    options_.reads_one_chunk = *reads == 1;
    return {};
  }
  return usage_error("unknown option '" + std::string(name) + "' (try 'sluice-bench help')");
}

Result<std::string_view> Parser::take_value(std::string_view name,
                                            std::optional<std::string_view> inline_value) {
  static constexpr std::string_view kValued[] = {"--url",  "--cacert", "--mark",
                                                 "--runs", "--count",  "--reads"};
  bool known = false;
  for (std::string_view valued : kValued) known = known || valued == name;
  if (!known) {
    return usage_error("unknown option '" + std::string(name) + "' (try 'sluice-bench help')");
  }
  if (inline_value) return *inline_value;
  if (index_ >= argc_) return usage_error(std::string(name) + " needs a value");
  return std::string_view(argv_[index_++]);
}

Result<void> Parser::only_for(Subcommand wanted, std::string_view name) const {
  if (wanted == subcommand_) return {};
  return usage_error(std::string(name) + " applies to '" + subcommand_name(wanted) +
                     "' only, not '" + subcommand_name(subcommand_) + "'");
}

Result<void> Parser::check_complete() const {
  if (options_.url.empty()) {
    return usage_error(std::string(subcommand_name(subcommand_)) + ": --url URL is required");
  }
  if (subcommand_ == Subcommand::held && !count_given_) {
    return usage_error("held: --count N is required (how many responses to hold)");
  }
  return {};
}

}  // namespace

Result<BenchOptions> parse_bench_options(Subcommand subcommand, int argc,
                                         const char* const* argv) {
  return Parser(subcommand, argc, argv).run();
}

ClientOptions client_options(const BenchOptions& options) {
  ClientOptions client;
  client.ca_file = options.ca_file;
  client.insecure = options.insecure;
  return client;
}

Request make_request(const BenchOptions& options) {
  Request request = Request::get(options.url);
  if (options.http1_only) request.version = VersionPolicy::http1_only;
  request.decode.enabled = options.compressed;
  request.mark = options.mark;
  return request;
}

std::string usage_text() {
  return R"(usage: sluice-bench SUBCOMMAND [options]

Each benchmark prints one figure per line on stdout as `name value` (machine
readable) and a short summary on stderr. See bench/README.md for how to read them.

subcommands:
  throughput --url URL [--runs N]
      Downloads URL N times (default 3), reading into a 256 KiB buffer and
      discarding. Prints the median MiB/s and CPU seconds per GiB. When curl is
      on PATH, runs `curl -s -o /dev/null` on the same URL interleaved with ours
      and prints its figures and ratio_vs_curl.
  held --url URL --count N [--reads 0|1]
      Starts N requests at once, reads nothing (--reads 0, default) or one chunk
      of each body (--reads 1), waits 5 s so the 4 s sweep has run, and prints the
      resident memory each unread response holds.
  help
      This text.

options:
  --url URL        the URL to download (http or https)
  --runs N         throughput: downloads per contender (1..1000, default 3)
  --count N        held: responses held at once; also the connection limit
  --reads 0|1      held: read nothing, or one chunk of each body, before holding
  --mark BYTES     staging high-water mark per response (default 256K; K/M suffix)
  --http1.1        HTTP/1.1 only (curl gets --http1.1 too)
  --cacert FILE    trust this PEM bundle (curl gets --cacert FILE too)
  -k, --insecure   skip certificate verification (curl gets -k too)
  --compressed     ask for and decode gzip/br/zstd (curl gets --compressed too)

exit status: 0 done, 1 a download failed or runs disagreed, 2 bad options.
)";
}

}  // namespace sluice::bench
