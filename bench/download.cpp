// `sluice-bench download`: one URL into a file with sluice::download() (N ranges),
// and with curl, wget and aria2c on the same URL, interleaved; median speed, peak
// resident memory and CPU per contender. Main thread only. Every contender runs in a
// process of its own (ours in a fork()ed child, so the parent never has a Client's
// threads and may fork again), so each peak is that contender's alone.

#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

#include "bench/child_peak.hpp"
#include "bench/measure.hpp"
#include "bench/peer.hpp"
#include "bench/report.hpp"
#include "bench/rss.hpp"
#include "bench/scratch_dir.hpp"
#include "bench/subcommands.hpp"
#include "sluice/client.hpp"
#include "sluice/download.hpp"

namespace sluice::bench {
namespace {

constexpr double kMiB = 1024.0 * 1024.0;
constexpr double kGiB = 1024.0 * kMiB;

// One download by one contender.
struct RunFigures {
  double wall_s = 0;
  double cpu_s = 0;
  std::uint64_t bytes = 0;           ///< the size of the file it left
  std::uint64_t peak_rss_bytes = 0;  ///< ours: the child's VmHWM; peers: wait4's ru_maxrss
  bool peak_at_floor = false;        ///< peers: the peak is the spawner's size (see README)
  std::string http_version;          ///< "1.1", "2", "3"; empty when the peer does not say
  unsigned ranges = 1;               ///< ours: ranges fetched at once

  double mib_per_s() const { return wall_s > 0 ? static_cast<double>(bytes) / kMiB / wall_s : 0; }
  double cpu_s_per_gib() const {
    return bytes > 0 ? cpu_s / (static_cast<double>(bytes) / kGiB) : 0;
  }
};

// All runs of one contender.
struct Contender {
  // "sluice", "sluice_nosteal", "curl", "wget", "aria2c": also the output file's stem
  std::string name;
  std::vector<RunFigures> runs;
};

constexpr const char* kNoSteal = "sluice_nosteal";

bool is_ours(const std::string& name) { return name.rfind("sluice", 0) == 0; }

// HttpVersion crosses the child's pipe as a number: 1.0, 1.1, 2 or 3.
double version_number(HttpVersion version) {
  switch (version) {
    case HttpVersion::http1_0: return 1.0;
    case HttpVersion::http1_1: return 1.1;
    case HttpVersion::http2: return 2;
    case HttpVersion::http3: return 3;
  }
  return 0;
}

std::string version_text(double number) {
  if (number <= 0) return "";
  char text[16];
  std::snprintf(text, sizeof text, "%g", number);
  return text;
}

bool is_http3(VersionPolicy version) {
  return version == VersionPolicy::http3 || version == VersionPolicy::http3_only;
}

// How a sluice run differs: without stealing, min_range_size is a whole range of
// the plan (size / N), so no range's rest is ever worth halving (the supervisor
// halves only a rest of at least twice the minimum) and each range stays with the
// source it began on.
struct SluiceRun {
  bool first_run = false;
  bool steal = true;
  std::uint64_t size = 0;  // the file's size (from sluice's first run): for no-steal
};

// The child's side of one sluice run: a fresh Client (as each peer is a fresh
// process), download(), the Client destroyed (its threads joined) before the clocks
// stop. The first run's notes (a server without ranges, ...) go to stderr.
Result<ChildFigures> sluice_child(const BenchOptions& options, const std::string& path,
                                  const SluiceRun& how) {
  const double cpu_before = process_cpu_seconds();
  const auto start = std::chrono::steady_clock::now();
  std::optional<DownloadResult> done;
  {
    Result<Client> client = Client::create(client_options(options));
    if (!client) return std::move(client).error();
    DownloadOptions download_options;
    download_options.request = make_request(options);
    download_options.target.path = path;
    download_options.ranges = options.split;
    download_options.mirrors = options.mirrors;
    if (!how.steal)
      download_options.min_range_size = std::max<std::uint64_t>(1, how.size / options.split);
    Result<DownloadResult> result = download(*client, std::move(download_options));
    if (!result) return std::move(result).error();
    done = std::move(*result);
  }
  const double wall_s =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  if (how.first_run) {
    for (const std::string& note : done->notes) print_note("sluice: " + note);
  }
  return ChildFigures{{"wall_s", wall_s},
                      {"cpu_s", process_cpu_seconds() - cpu_before},
                      {"size", static_cast<double>(done->size)},
                      {"ranges", static_cast<double>(done->ranges)},
                      {"http_version", version_number(done->first_response.version)}};
}

Result<RunFigures> run_sluice(const BenchOptions& options, const std::string& path,
                              const SluiceRun& how) {
  Result<ChildReport> report = run_in_child([&] { return sluice_child(options, path, how); });
  if (!report) return std::move(report).error();
  RunFigures figures;
  figures.wall_s = report->figure("wall_s");
  figures.cpu_s = report->figure("cpu_s");
  figures.bytes = static_cast<std::uint64_t>(report->figure("size"));
  figures.peak_rss_bytes = report->peak_rss_bytes;
  figures.http_version = version_text(report->figure("http_version"));
  figures.ranges = static_cast<unsigned>(report->figure("ranges"));
  return figures;
}

// curl's -w output: "%{http_code} %{http_version}"; a non-2xx status is a failure
// (curl exits 0 on a 404 without --fail).
Result<ChildFigures> curl_output_figures(const std::string& output, const std::string& url) {
  int http_code = 0;
  std::string version;
  std::istringstream(output) >> http_code >> version;
  if (http_code < 200 || http_code > 299) {
    return Error(ErrorCategory::protocol, "curl got HTTP status " + std::to_string(http_code) +
                                              " for " + url + " (expected 2xx)");
  }
  double number = version == "1.1" ? 1.1 : std::atof(version.c_str());
  return ChildFigures{{"http_version", number}};
}

// The child's side of one peer run. The peer is this child's only child, so
// RUSAGE_CHILDREN's ru_maxrss is the peer's peak. The kernel folds the spawning
// process's resident size at exec into that figure (posix_spawn shares our memory
// until the exec), so it is reported too: a peak equal to it is a floor.
Result<ChildFigures> peer_child(const std::vector<std::string>& argv, const std::string& url) {
  Result<MemoryStatus> spawner = read_memory_status();
  Result<PeerRun> run = run_peer(argv);
  if (!run) return std::move(run).error();
  if (run->exit_code != 0) {
    std::string how = run->term_signal != 0
                          ? "was killed by signal " + std::to_string(run->term_signal)
                          : "exited with " + std::to_string(run->exit_code);
    return Error(ErrorCategory::protocol, argv.front() + " " + how + " downloading " + url);
  }
  rusage children{};
  ::getrusage(RUSAGE_CHILDREN, &children);
  ChildFigures figures = {
      {"wall_s", run->wall_s},
      {"cpu_s", run->cpu_s},
      {"max_rss_bytes", static_cast<double>(children.ru_maxrss) * 1024.0},
      {"spawner_rss_bytes", spawner ? static_cast<double>(spawner->rss_bytes) : 0.0}};
  if (argv.front() == "curl") {
    Result<ChildFigures> parsed = curl_output_figures(run->output, url);
    if (!parsed) return std::move(parsed).error();
    figures.insert(figures.end(), parsed->begin(), parsed->end());
  }
  return figures;
}

Result<RunFigures> run_peer_download(const std::vector<std::string>& argv, const std::string& url) {
  Result<ChildReport> report = run_in_child([&] { return peer_child(argv, url); });
  if (!report) return std::move(report).error();
  RunFigures figures;
  figures.wall_s = report->figure("wall_s");
  figures.cpu_s = report->figure("cpu_s");
  figures.peak_rss_bytes = static_cast<std::uint64_t>(report->figure("max_rss_bytes"));
  const double floor = report->figure("spawner_rss_bytes");
  figures.peak_at_floor = static_cast<double>(figures.peak_rss_bytes) <= floor * 1.02;
  figures.http_version = version_text(report->figure("http_version"));
  return figures;
}

// The command line of a peer downloading options.url into dir/NAME, with the TLS
// options mapped as throughput maps them for curl.
std::vector<std::string> peer_argv(const std::string& peer, const BenchOptions& options,
                                   const std::string& dir, const std::string& name) {
  const std::string path = dir + "/" + name;
  const bool ca = !options.ca_file.empty();
  std::vector<std::string> argv;
  if (peer == "curl") {
    argv = {"curl", "-s", "-S", "-o", path, "-w", "%{http_code} %{http_version}"};
    if (const char* version = curl_version_option(options.version)) argv.push_back(version);
    if (ca) argv.insert(argv.end(), {"--cacert", options.ca_file});
    if (options.insecure) argv.push_back("-k");
  } else if (peer == "wget") {
    argv = {"wget", "-q", "-O", path};
    if (ca) argv.push_back("--ca-certificate=" + options.ca_file);
    if (options.insecure) argv.push_back("--no-check-certificate");
  } else {
    const std::string n = std::to_string(options.split);
    argv = {"aria2c", "-x", n, "-s", n, "-d", dir, "-o", name};
    if (ca) argv.push_back("--ca-certificate=" + options.ca_file);
    if (options.insecure) argv.push_back("--check-certificate=false");
  }
  argv.push_back(options.url);
  // aria2c takes several URIs of one file and spreads its connections over them.
  if (peer == "aria2c") argv.insert(argv.end(), options.mirrors.begin(), options.mirrors.end());
  return argv;
}

// The contenders this run has: sluice (and with mirrors sluice_nosteal), then each
// peer on PATH (a note for the others).
std::vector<Contender> choose_contenders(const BenchOptions& options) {
  std::vector<Contender> contenders = {{"sluice", {}}};
  const bool mirrors = !options.mirrors.empty();
  if (mirrors) contenders.push_back({kNoSteal, {}});
  for (const char* peer : {"curl", "wget", "aria2c"}) {
    if (mirrors && std::string(peer) != "aria2c") {
      print_note(std::string(peer) + " takes one URL, no mirrors: no " + peer + " figures");
    } else if (!on_path(peer)) {
      print_note(std::string(peer) + " is not on PATH: no " + peer + " figures");
    } else if (std::string(peer) == "curl" && is_http3(options.version)) {
      print_note("curl in Debian 12 has no HTTP/3: no curl figures");
    } else {
      contenders.push_back({peer, {}});
    }
  }
  return contenders;
}

void note_run(int run, const std::string& who, const RunFigures& figures) {
  std::string details = std::to_string(figures.bytes) + " bytes";
  if (!figures.http_version.empty()) details += ", HTTP/" + figures.http_version;
  if (is_ours(who)) details += ", " + std::to_string(figures.ranges) + " ranges";
  char line[200];
  std::snprintf(line, sizeof line, "run %d %-6s %9.1f MiB/s %8.1f MiB peak%s %7.3f s CPU/GiB", run,
                who.c_str(), figures.mib_per_s(), to_mib(figures.peak_rss_bytes),
                figures.peak_at_floor ? " (floor)" : "", figures.cpu_s_per_gib());
  print_note(std::string(line) + " (" + details + ")");
}

// One run of one contender, its file measured and deleted whatever happened.
// `size`: the file's size once sluice's first run has measured it (0 before).
Result<RunFigures> run_contender(const Contender& contender, const BenchOptions& options,
                                 const std::string& dir, int run, std::uint64_t size_known) {
  const std::string name = contender.name + ".bin";
  const std::string path = dir + "/" + name;
  const SluiceRun how{run == 1 && contender.name == "sluice", contender.name != kNoSteal,
                      size_known};
  Result<RunFigures> figures =
      is_ours(contender.name)
          ? run_sluice(options, path, how)
          : run_peer_download(peer_argv(contender.name, options, dir, name), options.url);
  std::optional<std::uint64_t> size = file_size(path);
  remove_outputs(path);
  if (!figures) return figures;
  if (!size) {
    return Error(ErrorCategory::io,
                 contender.name + " reported success but left no file at " + path);
  }
  if (is_ours(contender.name) && figures->bytes != *size) {
    return Error(ErrorCategory::io, "sluice reported " + std::to_string(figures->bytes) +
                                        " bytes but the file has " + std::to_string(*size));
  }
  figures->bytes = *size;
  return figures;
}

// Every file of every contender must have the size of sluice's first.
Result<void> check_sizes(const std::vector<Contender>& contenders) {
  const std::uint64_t expected = contenders.front().runs.front().bytes;
  for (const Contender& contender : contenders) {
    for (const RunFigures& run : contender.runs) {
      if (run.bytes != expected) {
        return Error(ErrorCategory::protocol,
                     contender.name + " downloaded " + std::to_string(run.bytes) +
                         " bytes where sluice downloaded " + std::to_string(expected));
      }
    }
  }
  return {};
}

struct Medians {
  double speed = 0, peak_mib = 0, cpu = 0;
};

Medians medians_of(const Contender& contender) {
  std::vector<double> speed, peak, cpu;
  for (const RunFigures& run : contender.runs) {
    speed.push_back(run.mib_per_s());
    peak.push_back(to_mib(run.peak_rss_bytes));
    cpu.push_back(run.cpu_s_per_gib());
  }
  return {median(speed), median(peak), median(cpu)};
}

void print_all_figures(const BenchOptions& options, const std::vector<Contender>& contenders) {
  const Contender& ours = contenders.front();
  const Medians mine = medians_of(ours);
  print_figure("runs", static_cast<double>(ours.runs.size()), 0);
  print_figure("split", options.split, 0);
  print_figure("ranges", ours.runs.front().ranges, 0);
  print_text("http_version", ours.runs.front().http_version);
  print_figure("bytes_per_run", static_cast<double>(ours.runs.front().bytes), 0);
  print_figure("download_mib_s", mine.speed, 1);
  print_figure("peak_rss_mib", mine.peak_mib, 1);
  print_figure("cpu_s_per_gib", mine.cpu);
  for (std::size_t i = 1; i < contenders.size(); ++i) {
    const Contender& peer = contenders[i];
    const Medians theirs = medians_of(peer);
    if (!peer.runs.front().http_version.empty()) {
      print_text(peer.name + "_http_version", peer.runs.front().http_version);
    }
    print_figure(peer.name + "_download_mib_s", theirs.speed, 1);
    print_figure(peer.name + "_peak_rss_mib", theirs.peak_mib, 1);
    print_figure(peer.name + "_cpu_s_per_gib", theirs.cpu);
    print_figure("ratio_vs_" + peer.name, theirs.speed > 0 ? mine.speed / theirs.speed : 0);
  }
}

// Says where the comparison is not like for like: fewer ranges than asked, or peers
// that spoke another protocol.
void note_differences(const BenchOptions& options, const std::vector<Contender>& contenders) {
  const RunFigures& first = contenders.front().runs.front();
  if (first.ranges < options.split) {
    print_note("note: sluice fetched " + std::to_string(first.ranges) + " range(s), not " +
               std::to_string(options.split) + " (see its note above)");
  }
  for (std::size_t i = 1; i < contenders.size(); ++i) {
    const Contender& peer = contenders[i];
    if (is_ours(peer.name)) continue;
    std::string theirs = peer.runs.front().http_version;
    if (theirs.empty()) theirs = "1.1";  // wget and aria2c speak HTTP/1.1 only
    if (theirs != first.http_version) {
      print_note("note: " + peer.name + " spoke HTTP/" + theirs + ", sluice HTTP/" +
                 first.http_version + ": ratio_vs_" + peer.name + " compares different protocols");
    }
  }
}

}  // namespace

int run_download(const BenchOptions& options) {
  std::vector<Contender> contenders = choose_contenders(options);
  Result<ScratchDir> dir = ScratchDir::create(scratch_parent(options));
  if (!dir) {
    print_note(dir.error().message());
    return kExitFailed;
  }
  // Interleaved (sluice, curl, wget, aria2c, sluice, ...) so that load from a
  // neighbour on a shared machine hits every contender.
  for (int run = 1; run <= options.runs; ++run) {
    for (Contender& contender : contenders) {
      const std::uint64_t size_known =
          contenders.front().runs.empty() ? 0 : contenders.front().runs.front().bytes;
      Result<RunFigures> figures = run_contender(contender, options, dir->path(), run, size_known);
      if (!figures) {
        print_note(contender.name + " run " + std::to_string(run) +
                   " failed: " + figures.error().message());
        return kExitFailed;
      }
      note_run(run, contender.name, *figures);
      contender.runs.push_back(std::move(*figures));
    }
  }
  if (Result<void> sizes = check_sizes(contenders); !sizes) {
    print_note(sizes.error().message());
    return kExitFailed;
  }
  note_differences(options, contenders);
  print_all_figures(options, contenders);
  return kExitOk;
}

}  // namespace sluice::bench
