// `sluice-bench resumption`: what TLS session resumption saves a segmented download
// (sluice::download() in N ranges, which is `sluice --split N`): its N connections to
// one origin do one full handshake and N - 1 resumed ones, or N full ones with the
// session cache off (--no-sessionid). Per run, in a child process of its own (so CPU
// and threads are that run's alone): the time from download() until every range's
// response had begun (time to first byte of all ranges) and the process CPU spent by
// then (the handshakes, and whatever the first range received meanwhile), the whole
// download's time and CPU, and the handshakes ClientStats counted. The two variants
// interleave, and `aria2c -x N -s N` runs on the same URL after them when on PATH.
// Main thread only (the children have the Client's threads).

#include <chrono>
#include <cstdint>
#include <cstdio>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "bench/child_peak.hpp"
#include "bench/measure.hpp"
#include "bench/peer.hpp"
#include "bench/report.hpp"
#include "bench/scratch_dir.hpp"
#include "bench/subcommands.hpp"
#include "sluice/client.hpp"
#include "sluice/download.hpp"

namespace sluice::bench {
namespace {

using Clock = std::chrono::steady_clock;

// What the trace of one download shows: when the first `wanted` responses began,
// and how long each connection took from its TCP connect to the end of its TLS
// handshake. Written by the Client's trace callback on its HTTP thread, read by the
// child's main thread only after the Client is destroyed (its thread joined), so no
// lock is needed.
class TraceWatch {
 public:
  TraceWatch(unsigned wanted, Clock::time_point start, double cpu_start)
      : wanted_(wanted), start_(start), cpu_start_(cpu_start) {}

  // Lines look like "c3 connect: trying 127.0.0.1:443", "c3 connect: TLS handshake
  // done, session resumed", "c3 h1: response 206" ("c3 s1 h2: response 200").
  void on_line(std::string_view line) {
    if (line.find(" connect: trying ") != std::string_view::npos) {
      connecting_[conn_of(line)] = Clock::now();
    } else if (line.find(" connect: TLS handshake done, ") != std::string_view::npos) {
      auto found = connecting_.find(conn_of(line));
      if (found != connecting_.end()) {
        setups_s_.push_back(std::chrono::duration<double>(Clock::now() - found->second).count());
      }
    } else if (line.find(": response ") != std::string_view::npos && ++heads_ == wanted_) {
      all_heads_s_ = std::chrono::duration<double>(Clock::now() - start_).count();
      all_heads_cpu_s_ = process_cpu_seconds() - cpu_start_;
    }
  }
  unsigned heads() const { return heads_; }
  double all_heads_s() const { return all_heads_s_; }
  double all_heads_cpu_s() const { return all_heads_cpu_s_; }
  /// The median connect-to-handshake-done time of the connections after the first
  /// (those that resume when the cache is on).
  double later_setup_s() const {
    if (setups_s_.size() < 2) return 0;
    return median(std::vector<double>(setups_s_.begin() + 1, setups_s_.end()));
  }

 private:
  static std::string conn_of(std::string_view line) {
    return std::string(line.substr(0, line.find(' ')));
  }

  unsigned wanted_;
  Clock::time_point start_;
  double cpu_start_;
  std::map<std::string, Clock::time_point> connecting_;
  std::vector<double> setups_s_;  // in the order the handshakes completed
  unsigned heads_ = 0;
  double all_heads_s_ = 0;
  double all_heads_cpu_s_ = 0;
};

// One run's figures.
struct RunFigures {
  double heads_s = 0, heads_cpu_s = 0, wall_s = 0, cpu_s = 0;
  double full = 0, resumed = 0, heads = 0, ranges = 0, bytes = 0;
  double handshake_cpu_s = 0;  ///< ClientStats::tls_handshake_cpu_ns, all handshakes
  double later_setup_s = 0;    ///< median connect + handshake of connections 2..N
  double cpu_per_handshake_s() const {
    return full + resumed > 0 ? handshake_cpu_s / (full + resumed) : 0;
  }
};

Result<ChildFigures> sluice_child(const BenchOptions& options, const std::string& path,
                                  bool session_cache) {
  ClientOptions client = client_options(options);
  client.tls.session_cache = session_cache;
  client.pool.max_connections_per_origin = options.split;
  const double cpu_start = process_cpu_seconds();
  const Clock::time_point start = Clock::now();
  TraceWatch watch(options.split, start, cpu_start);
  client.trace = [&watch](std::string_view line) { watch.on_line(line); };
  ClientStats stats;
  DownloadResult done;
  {
    Result<Client> made = Client::create(std::move(client));
    if (!made) return std::move(made).error();
    DownloadOptions download_options;
    download_options.request = make_request(options);
    download_options.target.path = path;
    download_options.ranges = options.split;
    Result<DownloadResult> result = download(*made, std::move(download_options));
    if (!result) return std::move(result).error();
    done = std::move(*result);
    stats = made->stats();
  }
  return ChildFigures{{"heads_s", watch.all_heads_s()},
                      {"heads_cpu_s", watch.all_heads_cpu_s()},
                      {"heads", static_cast<double>(watch.heads())},
                      {"wall_s", std::chrono::duration<double>(Clock::now() - start).count()},
                      {"cpu_s", process_cpu_seconds() - cpu_start},
                      {"full", static_cast<double>(stats.tls_full_handshakes)},
                      {"resumed", static_cast<double>(stats.tls_resumed_handshakes)},
                      {"handshake_cpu_s", static_cast<double>(stats.tls_handshake_cpu_ns) / 1e9},
                      {"later_setup_s", watch.later_setup_s()},
                      {"ranges", static_cast<double>(done.ranges)},
                      {"bytes", static_cast<double>(done.size)}};
}

Result<RunFigures> run_variant(const BenchOptions& options, const std::string& dir,
                               bool session_cache) {
  const std::string path = dir + "/sluice.bin";
  Result<ChildReport> report =
      run_in_child([&] { return sluice_child(options, path, session_cache); });
  remove_outputs(path);
  if (!report) return std::move(report).error();
  RunFigures figures;
  figures.heads_s = report->figure("heads_s");
  figures.heads_cpu_s = report->figure("heads_cpu_s");
  figures.heads = report->figure("heads");
  figures.wall_s = report->figure("wall_s");
  figures.cpu_s = report->figure("cpu_s");
  figures.full = report->figure("full");
  figures.resumed = report->figure("resumed");
  figures.handshake_cpu_s = report->figure("handshake_cpu_s");
  figures.later_setup_s = report->figure("later_setup_s");
  figures.ranges = report->figure("ranges");
  figures.bytes = report->figure("bytes");
  if (figures.heads < options.split) {
    return Error(ErrorCategory::protocol,
                 "only " + std::to_string(static_cast<int>(figures.heads)) + " of " +
                     std::to_string(options.split) +
                     " ranges began (does the server take ranges? is the file large enough?)");
  }
  return figures;
}

void note_run(int run, const char* variant, const RunFigures& f) {
  char line[300];
  std::snprintf(line, sizeof line,
                "run %d %-12s %.0f full + %.0f resumed handshakes, %.3f ms CPU in them "
                "(%.3f ms each); later connections set up in %.2f ms; all %u ranges began "
                "after %.1f ms (%.1f ms CPU); whole download %.3f s, %.3f s CPU",
                run, variant, f.full, f.resumed, f.handshake_cpu_s * 1e3,
                f.cpu_per_handshake_s() * 1e3, f.later_setup_s * 1e3,
                static_cast<unsigned>(f.heads), f.heads_s * 1e3, f.heads_cpu_s * 1e3, f.wall_s,
                f.cpu_s);
  print_note(line);
}

// aria2c on the same URL, its whole download (it reports no per-range times).
Result<PeerRun> run_aria2c(const BenchOptions& options, const std::string& dir) {
  const std::string n = std::to_string(options.split);
  std::vector<std::string> argv = {"aria2c", "-q", "-x", n, "-s", n, "-d", dir, "-o", "aria2c.bin"};
  if (!options.ca_file.empty()) argv.push_back("--ca-certificate=" + options.ca_file);
  if (options.insecure) argv.push_back("--check-certificate=false");
  argv.push_back(options.url);
  Result<PeerRun> run = run_peer(argv);
  remove_outputs(dir + "/aria2c.bin");
  if (run && run->exit_code != 0)
    return Error(ErrorCategory::protocol, "aria2c exited " + std::to_string(run->exit_code));
  return run;
}

double median_of(const std::vector<RunFigures>& runs, double RunFigures::*field) {
  std::vector<double> values;
  for (const RunFigures& run : runs) values.push_back(run.*field);
  return median(values);
}

double ratio(double with, double without) { return without > 0 ? with / without : 0; }

void print_pair(const std::string& name, const std::vector<RunFigures>& with,
                const std::vector<RunFigures>& without, double RunFigures::*field, double scale) {
  const double on = median_of(with, field) * scale;
  const double off = median_of(without, field) * scale;
  print_figure(name, on);
  print_figure("no_resumption_" + name, off);
  print_figure(name + "_ratio", ratio(on, off));
}

void print_all(const BenchOptions& options, const std::vector<RunFigures>& with,
               const std::vector<RunFigures>& without) {
  print_figure("runs", static_cast<double>(with.size()), 0);
  print_figure("split", options.split, 0);
  print_figure("bytes_per_run", with.front().bytes, 0);
  print_figure("full_handshakes", median_of(with, &RunFigures::full), 0);
  print_figure("resumed_handshakes", median_of(with, &RunFigures::resumed), 0);
  print_figure("no_resumption_full_handshakes", median_of(without, &RunFigures::full), 0);
  // The handshakes' own CPU (ClientStats), all N together and per handshake.
  print_pair("handshake_cpu_ms", with, without, &RunFigures::handshake_cpu_s, 1e3);
  std::vector<double> each, each_off;
  for (const RunFigures& run : with) each.push_back(run.cpu_per_handshake_s() * 1e3);
  for (const RunFigures& run : without) each_off.push_back(run.cpu_per_handshake_s() * 1e3);
  print_figure("cpu_per_handshake_ms", median(each));
  print_figure("no_resumption_cpu_per_handshake_ms", median(each_off));
  // One resumed handshake: what the resumption runs spent beyond their one full
  // handshake (priced as a no-resumption run's average), over the resumed ones.
  const double full_ms = median(each_off);
  const double resumed = median_of(with, &RunFigures::resumed);
  const double full = median_of(with, &RunFigures::full);
  if (resumed > 0 && full_ms > 0) {
    const double one =
        (median_of(with, &RunFigures::handshake_cpu_s) * 1e3 - full * full_ms) / resumed;
    print_figure("cpu_per_resumed_handshake_ms", one);
    print_figure("resumed_vs_full_handshake_cpu_ratio", one / full_ms);
  }
  print_pair("later_connection_setup_ms", with, without, &RunFigures::later_setup_s, 1e3);
  print_pair("all_ranges_begun_ms", with, without, &RunFigures::heads_s, 1e3);
  print_pair("cpu_until_all_ranges_begun_ms", with, without, &RunFigures::heads_cpu_s, 1e3);
  print_pair("download_s", with, without, &RunFigures::wall_s, 1);
  print_pair("download_cpu_s", with, without, &RunFigures::cpu_s, 1);
}

}  // namespace

int run_resumption(const BenchOptions& options) {
  if (options.url.rfind("https://", 0) != 0) {
    print_note("resumption: --url must be https:// (there is no TLS to resume otherwise)");
    return kExitUsage;
  }
  Result<ScratchDir> dir = ScratchDir::create(scratch_parent(options));
  if (!dir) {
    print_note(dir.error().message());
    return kExitFailed;
  }
  std::vector<RunFigures> with, without;
  for (int run = 1; run <= options.runs; ++run) {
    for (const bool cache : {true, false}) {
      Result<RunFigures> figures = run_variant(options, dir->path(), cache);
      const char* variant = cache ? "resumption" : "no-sessionid";
      // Median per-run figures; the second variant runs right after the first, so
      // load from a neighbour on a shared machine hits both.
      if (!figures) {
        print_note(std::string(variant) + " run " + std::to_string(run) +
                   " failed: " + figures.error().message());
        return kExitFailed;
      }
      note_run(run, variant, *figures);
      (cache ? with : without).push_back(*figures);
    }
  }
  print_all(options, with, without);
  if (!on_path("aria2c")) {
    print_note("aria2c is not on PATH: no aria2c figures");
    return kExitOk;
  }
  std::vector<double> wall, cpu;
  for (int run = 1; run <= options.runs; ++run) {
    Result<PeerRun> aria2c = run_aria2c(options, dir->path());
    if (!aria2c) {
      print_note("aria2c run " + std::to_string(run) + " failed: " + aria2c.error().message());
      return kExitFailed;
    }
    wall.push_back(aria2c->wall_s);
    cpu.push_back(aria2c->cpu_s);
  }
  print_figure("aria2c_download_s", median(wall));
  print_figure("aria2c_download_cpu_s", median(cpu));
  return kExitOk;
}

}  // namespace sluice::bench
