// A chaos download: the `sluice` command fetches a served file through a ChaosLink,
// single or --split, with --retry and a deadline. It must end byte-exact, or fail
// with an exit code that names a network fault, say how to resume, and leave a
// control file that `-C -` (the faults switched off) resumes to the exact bytes.

#include <filesystem>
#include <set>

#include "chaos/chaos_link.hpp"
#include "chaos/chaos_process.hpp"
#include "chaos/chaos_run.hpp"

namespace sluice::chaos {
namespace {

// The exit codes of a network fault (docs/cli.md): a refused or failed connection,
// broken HTTP, a cut body, a 503 answered on every try, a timeout or a stall, a
// handshake cut in two, an empty reply, a reset, a failed HTTP/3 connection.
const std::set<int> kFaultExitCodes = {7, 8, 16, 18, 22, 28, 35, 52, 55, 56, 95};

// -m and --retry-max-time: the last retry starts within the second and ends within
// the first, so nothing may take longer than both plus the time to exit.
constexpr int kMaxTimeSeconds = 20;
constexpr int kRetryMaxTimeSeconds = 20;
constexpr double kDeadlineSeconds = kMaxTimeSeconds + kRetryMaxTimeSeconds + 5;

const char* version_flag(Protocol protocol) {
  switch (protocol) {
    case Protocol::h1:
    case Protocol::h1_tls: return "--http1.1";
    case Protocol::h2: return "--http2";
    case Protocol::h3: return "--http3-only";
  }
  return "--http1.1";
}

struct Plan {
  Protocol protocol = Protocol::h1;
  int split = 1;  ///< 1: a single range
  int retries = 0;
  const soak::ServedFile* file = nullptr;
};

Plan make_plan(const ChaosSetup& setup, std::mt19937_64& rng) {
  Plan plan;
  plan.protocol = static_cast<Protocol>(std::uniform_int_distribution<int>(0, 3)(rng));
  if (std::bernoulli_distribution(0.5)(rng)) {
    plan.split = std::uniform_int_distribution<int>(2, 4)(rng);
  }
  // Some runs without retries, so that the fail-and-resume path is walked too.
  static constexpr int kRetries[] = {0, 2, 3};
  plan.retries = kRetries[std::uniform_int_distribution<int>(0, 2)(rng)];
  plan.file = &setup.env.file(std::bernoulli_distribution(0.8)(rng) ? "1m.bin" : "large.txt");
  return plan;
}

std::vector<std::string> command(const ChaosSetup& setup, const Plan& plan, const std::string& url,
                                 const std::string& path) {
  // -f: without it a fetch to -o FILE writes a 503's body and exits 0, as curl does.
  std::vector<std::string> argv = {
      setup.sluice, "-sSf", "-4", "--cacert", setup.env.ca_file, version_flag(plan.protocol),
      "--retry", std::to_string(plan.retries), "--retry-delay", "0.2", "--retry-max-time",
      std::to_string(kRetryMaxTimeSeconds), "-m", std::to_string(kMaxTimeSeconds),
      // A stalled connection is given up after 3 s
      // without a byte: the command's idle timeout.
      "-y", "3"};
  if (plan.split > 1) argv.insert(argv.end(), {"--split", std::to_string(plan.split)});
  argv.insert(argv.end(), {"-o", path, url});
  return argv;
}

// Judges a failed first attempt: the right exit code, a message that says how to
// resume, then a resume through the same link, without faults, to the exact bytes.
void judge_failure(const Plan& plan, std::vector<std::string> argv, const ProcessResult& first,
                   const std::string& path, ChaosLink& link, RunRecord& record) {
  record.detail = "exit " + std::to_string(first.exit_code);
  if (survivable(record.fault) || kFaultExitCodes.count(first.exit_code) == 0) {
    record.outcome = "wrong";
    record.detail += " after a fault that cuts nothing, or not a network fault's exit code: " +
                     first.stderr_text;
    return;
  }
  // Nothing to resume when nothing was written (a 503 on every try, a cut head).
  const bool kept = std::filesystem::exists(path) || std::filesystem::exists(path + ".sluice");
  if (kept && first.stderr_text.find("-C -") == std::string::npos) {
    record.outcome = "wrong";
    record.detail += ", but the message does not say how to resume: " + first.stderr_text;
    return;
  }
  link.faults_off();
  argv.insert(argv.end() - 1, {"-C", "-"});
  const ProcessResult resumed = run_process(argv, path + ".stderr");
  const std::string mismatch = file_mismatch(path, *plan.file);
  if (resumed.exit_code != 0 || !mismatch.empty() || std::filesystem::exists(path + ".sluice")) {
    record.outcome = "wrong";
    record.detail += "; the resume exited " + std::to_string(resumed.exit_code) + " (" +
                     resumed.stderr_text + ") " + mismatch;
    return;
  }
  record.outcome = "failed_resumed";
}

}  // namespace

RunRecord run_download(const ChaosSetup& setup, std::uint64_t index) {
  RunRecord record;
  record.kind = "download";
  record.index = index;
  record.seed = run_seed(setup.seed, index);
  std::mt19937_64 rng(record.seed);
  const Plan plan = make_plan(setup, rng);
  record.protocol = to_string(plan.protocol);
  record.mode = plan.split > 1 ? "split" : "single";
  record.fault = pick_fault(plan.protocol, rng);
  record.log.push_back("plan retries=" + std::to_string(plan.retries) +
                       " split=" + std::to_string(plan.split) + " file=" + plan.file->name);
  const std::string path = setup.scratch + "/download-" + std::to_string(index) + ".bin";
  std::filesystem::remove(path);
  std::filesystem::remove(path + ".sluice");
  {
    ChaosLink link(setup.env, plan.protocol, record.fault, record.seed, plan.file->size + 8192,
                   [&record](const std::string& line) { record.log.push_back(line); });
    const std::vector<std::string> argv =
        command(setup, plan, link.base_url() + "/" + plan.file->name, path);
    const ProcessResult first = run_process(argv, path + ".stderr");
    record.seconds = first.seconds;
    if (first.exit_code == 0) {
      const std::string mismatch = file_mismatch(path, *plan.file);
      const bool control_left = std::filesystem::exists(path + ".sluice");
      record.outcome = mismatch.empty() && !control_left ? "ok" : "wrong";
      record.detail = mismatch.empty() ? (control_left ? "exit 0 with a control file left" : "")
                                       : "exit 0, but " + mismatch;
    } else {
      judge_failure(plan, argv, first, path, link, record);
    }
  }
  if (record.seconds > kDeadlineSeconds) {
    record.outcome = "wrong";
    record.detail += " (took " + std::to_string(record.seconds) + " s, deadline " +
                     std::to_string(kDeadlineSeconds) + " s)";
  }
  if (!record.wrong()) {
    for (const char* suffix : {"", ".sluice", ".stderr"}) std::filesystem::remove(path + suffix);
  }
  return record;
}

}  // namespace sluice::chaos
