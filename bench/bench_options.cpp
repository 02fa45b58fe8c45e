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
  switch (subcommand) {
    case Subcommand::throughput: return "throughput";
    case Subcommand::held: return "held";
    case Subcommand::many: return "many";
    case Subcommand::upload_burst: return "upload-burst";
    case Subcommand::file_burst: return "file-burst";
    case Subcommand::append_growth: return "append-growth";
    case Subcommand::download: return "download";
  }
  return "?";
}

constexpr Subcommand kAllSubcommands[] = {
    Subcommand::throughput, Subcommand::held,          Subcommand::many,    Subcommand::upload_burst,
    Subcommand::file_burst, Subcommand::append_growth, Subcommand::download};

// A set of subcommands, for the options that apply to some only.
constexpr unsigned bit(Subcommand subcommand) { return 1u << static_cast<unsigned>(subcommand); }

// The subcommands that talk HTTP: the others (file-burst, append-growth) measure
// the library locally, and a network option given to them is a mistake.
constexpr unsigned kNetworkSubcommands = bit(Subcommand::throughput) | bit(Subcommand::held) |
                                         bit(Subcommand::many) | bit(Subcommand::upload_burst) |
                                         bit(Subcommand::download);
constexpr unsigned kSizedSubcommands =
    bit(Subcommand::upload_burst) | bit(Subcommand::file_burst) | bit(Subcommand::append_growth);

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
         name == "--compressed" || name == "--mark" || version_option(name).has_value();
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
  Result<void> apply_version(std::string_view name, VersionPolicy version);
  Result<void> apply_valued(std::string_view name, std::string_view value);
  Result<void> apply_counted(std::string_view name, std::string_view value);
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
                       " (give at most one of --http1.1, --http2, --http2-prior-knowledge, --http3, --http3-only)");
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
    if (Result<void> ok = only_for(bit(Subcommand::download), name); !ok) return ok;
    if (value.empty()) return usage_error("--dir: expected a directory");
    options_.dir = std::string(value);
    return {};
  }
  if (name == "--mark") {
    Result<std::size_t> mark = parse_bytes(name, value);
    if (!mark) return std::move(mark).error();
    options_.mark = *mark;
    return {};
  }
  if (name == "--size") {
    if (Result<void> ok = only_for(kSizedSubcommands, name); !ok) return ok;
    Result<std::size_t> size = parse_bytes(name, value);
    if (!size) return std::move(size).error();
    options_.size = *size;
    return {};
  }
  return apply_counted(name, value);
}

// The options that take a whole number, each valid for some subcommands only.
Result<void> Parser::apply_counted(std::string_view name, std::string_view value) {
  struct Counted {
    std::string_view name;
    unsigned subcommands;  // bits of bit()
    std::uint64_t min, max;
  };
  static const Counted kCounted[] = {
      {"--runs", bit(Subcommand::throughput) | bit(Subcommand::many) | bit(Subcommand::download), 1,
       1000},
      {"--split", bit(Subcommand::download), 1, 16},
      {"--count",
       bit(Subcommand::held) | bit(Subcommand::upload_burst) | bit(Subcommand::file_burst), 1,
       10000},
      {"--reads", bit(Subcommand::held), 0, 1},
      {"--requests", bit(Subcommand::many), 1, 100'000'000},
      {"--concurrency", bit(Subcommand::many), 1, 10000},
  };
  for (const Counted& counted : kCounted) {
    if (counted.name != name) continue;
    if (Result<void> ok = only_for(counted.subcommands, name); !ok) return ok;
    Result<std::uint64_t> number = parse_number(name, value, counted.min, counted.max);
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
  return usage_error("unknown option '" + std::string(name) + "' (try 'sluice-bench help')");
}

Result<std::string_view> Parser::take_value(std::string_view name,
                                            std::optional<std::string_view> inline_value) {
  static constexpr std::string_view kValued[] = {
      "--url",  "--cacert",   "--mark",        "--runs",  "--count", "--reads",
      "--size", "--requests", "--concurrency", "--split", "--dir"};
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
  if (options_.runs == 0) options_.runs = subcommand_ == Subcommand::many ? 1 : 3;
  set_burst_defaults();
  return {};
}

void Parser::set_burst_defaults() {
  constexpr std::size_t kMiB = 1024 * 1024;
  bool burst = subcommand_ == Subcommand::upload_burst || subcommand_ == Subcommand::file_burst;
  if (burst && options_.count == 0) options_.count = 300;
  if (burst && options_.size == 0) options_.size = kMiB;
  if (subcommand_ == Subcommand::append_growth && options_.size == 0) options_.size = 64 * kMiB;
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
  request.version = options.version;
  request.decode.enabled = options.compressed;
  request.mark = options.mark;
  return request;
}

const char* curl_version_option(VersionPolicy version) {
  switch (version) {
    case VersionPolicy::automatic: return nullptr;
    case VersionPolicy::http1_only: return "--http1.1";
    case VersionPolicy::http2: return "--http2";
    case VersionPolicy::http2_prior_knowledge: return "--http2-prior-knowledge";
    case VersionPolicy::http3: return "--http3";
    case VersionPolicy::http3_only: return "--http3-only";
  }
  return nullptr;
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
  held --url URL --count N [--reads 0|1] [--no-sweep]
      Starts N requests at once, reads nothing (--reads 0, default) or one chunk
      of each body (--reads 1), waits 5 s so the 4 s sweep has run, and prints the
      resident memory each unread response holds.
  many --url URL --requests N --concurrency C [--runs R]
      Fetches URL N times through one Client with C requests in flight at once
      (over h2: streams of one connection; over HTTP/1.1: C connections), R times
      (default 1). Prints the median requests/s and CPU per 1000 requests. When
      h2load is on PATH, runs it on the same URL interleaved with ours and prints
      its requests/s and ratio_vs_h2load.
  upload-burst [--count N] [--size BYTES] [--url URL]
      Starts N uploads (PUT) of owned bodies of BYTES each at once (default 300
      of 1 MiB) to a server that reads slowly (one on loopback, unless --url),
      once with the release rule and once without it, each in a child process,
      and prints both peak resident sizes and their ratio.
  file-burst [--count N] [--size BYTES]
      Submits N positional file writes of owned chunks of BYTES each (default
      300 of 1 MiB) to a file pool of 2 threads, collecting the completions only
      after submitting all, with the release rule and without it (each in a
      child process); prints both peaks and their ratio.
  append-growth [--size BYTES]
      Writes BYTES (default 64 MiB) then one byte to a BodyWriter nothing drains,
      and the same to a std::vector, each in a child process; prints each peak's
      growth over the payload and how long the one-byte write took.
  download --url URL [--split N] [--runs R] [--dir DIR]
      Downloads URL into a file in a scratch directory under DIR with
      sluice::download() in N ranges (default 1), R times (default 3), each
      run in a child process; interleaved with `curl -o`, `wget -O` and
      `aria2c -x N -s N` (those on PATH) on the same URL. Every file must have
      the same size; each is deleted after its run. Prints the median MiB/s,
      peak resident MiB and CPU per GiB of each, and ratio_vs_PEER.
  help
      This text.

options:
  --url URL        the URL to download (http or https); upload-burst: where to
                   PUT (optional)
  --runs N         throughput, many, download: runs per contender (1..1000;
                   default 3, many 1)
  --split N        download: byte ranges fetched at once (1..16; default 1);
                   aria2c gets -x N -s N
  --dir DIR        download: where the scratch directory goes (default $TMPDIR
                   or /tmp); use a disk, not a tmpfs, for a 1 GiB file
  --count N        held: responses held at once; also the connection limit;
                   upload-burst, file-burst: bodies or chunks (default 300)
  --size BYTES     upload-burst, file-burst: bytes each (default 1M);
                   append-growth: the payload (default 64M); K/M suffix
  --no-sweep       held: turn the library's sweep off (to see what it saves)
  --reads 0|1      held: read nothing, or one chunk of each body, before holding
  --requests N     many: requests in all
  --concurrency C  many: requests in flight at once
  --mark BYTES     staging high-water mark per response (default 256K; K/M suffix)
  --http1.1        HTTP/1.1 only (curl gets --http1.1 too)
  --http2          HTTP/2 where TLS ALPN agrees (curl gets --http2 too)
  --http2-prior-knowledge
                   HTTP/2 at once, also h2c over http:// (curl gets it too)
  --http3, --http3-only
                   HTTP/3 (throughput: the peer is gtlsclient, and an HTTP/2 run
                   of sluice on the same URL is interleaved for comparison)
  --cacert FILE    trust this PEM bundle (curl gets --cacert FILE too; download:
                   wget and aria2c get --ca-certificate=FILE)
  -k, --insecure   skip certificate verification (curl gets -k too; download:
                   wget --no-check-certificate, aria2c --check-certificate=false)
  --compressed     ask for and decode gzip/br/zstd (curl gets --compressed too)

exit status: 0 done, 1 a download, upload or write failed or runs disagreed,
2 bad options.
)";
}

}  // namespace sluice::bench
