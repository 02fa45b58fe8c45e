// Running the planned ranges: one range on the calling thread, several on a thread
// each while the calling thread reports progress and saves the control file; the
// first range that fails for good stops the others.
#include <condition_variable>
#include <mutex>
#include <system_error>
#include <thread>
#include <utility>

#include "download/download_session.hpp"
#include "download/file/download_file.hpp"
#include "download/file/download_sha256.hpp"
#include "download/shared_rate_limit.hpp"
#include "tools/rate_limiter.hpp"

namespace sluice {

Result<void> DownloadSession::run_ranges() {
  slots_.clear();
  for (std::size_t i = 0; i < plan_.size(); ++i) {
    slots_.push_back(std::make_unique<RangeSlot>(static_cast<unsigned>(i), plan_[i]));
  }
  FetchShared shared(client_, options_, *file_);
  shared.began = began_;
  Request primary = options_.request;
  if (!result_.first_response.effective_url.empty()) {
    primary.url = result_.first_response.effective_url;
  }
  DownloadSources sources(primary, options_.request.url, options_.mirrors);
  shared.sources = &sources;
  shared.validator = validator_;
  // A range download's total_ is where the range ends, not the server's size, which
  // its ranges' Content-Range name: they are held to the validator alone.
  shared.total = options_.range ? std::nullopt : total_;
  shared.range_count = static_cast<unsigned>(plan_.size());
  // A rate shared with other downloads is the parent of this one's own, or stands
  // alone when this one has none.
  RateLimiter* overall = options_.shared_rate_limit
                             ? &SharedRateLimitAccess::limiter(*options_.shared_rate_limit)
                             : nullptr;
  std::optional<RateLimiter> limiter;
  shared.limiter = overall;
  if (options_.max_bytes_per_second > 0)
    shared.limiter = &limiter.emplace(options_.max_bytes_per_second, overall);
  Sha256 hash;
  if (options_.sha256 && plan_.size() == 1 && plan_[0].start == 0 && plan_[0].done == 0) {
    shared.running_hash = &hash;
  }
  monitor_.set_total(total_);
  monitor_.set_resumed_from(result_.resumed_from);
  monitor_.watch(
      &slots_,
      ControlFile{url_without_credentials(options_.request.url), total_, validator_, {}, origin_},
      control_path_);

  std::size_t incomplete = 0;
  for (const auto& spec : plan_) incomplete += spec.complete() ? 0 : 1;
  result_.ranges = static_cast<unsigned>(std::max<std::size_t>(incomplete, 1));
  Result<void> outcome;
  if (incomplete > 1) {
    outcome = run_on_threads(shared);
  } else if (incomplete == 1) {
    std::size_t index = 0;
    while (plan_[index].complete()) ++index;
    RangeFetch fetch(shared, *slots_[index], 0, [&] { monitor_.tick(&shared.stop); });
    outcome = fetch.run(index == first_range_ ? std::move(first_) : std::nullopt);
  }
  first_.reset();
  auto saved = monitor_.save_control();  // also after a failure: how far each range got
  for (const auto& slot : slots_) result_.transferred += slot->received.load();
  result_.retries += shared.retries.load();
  report_sources(sources);
  if (result_.steals > 0) {
    note("ranges that finished early took half of the largest rest " +
         std::to_string(result_.steals) + (result_.steals == 1 ? " time" : " times"));
  }
  if (monitor_.save_error()) return *monitor_.save_error();
  if (!outcome) return outcome;
  if (!saved) return saved;
  if (shared.running_hash) {
    running_hashed_ = shared.hashed.load();
    running_digest_ = hash.hex_digest();
  }
  return {};
}

// Every incomplete range on a thread of its own; this thread watches. A range that
// finishes while another still has at least two minimum sizes unreserved hands its
// thread over: the largest rest is cut in half and a new range, on a new thread, takes
// the second half (aria2c's work stealing), so one slow connection does not decide
// when the file is done. The number of ranges in flight never grows past the start.
Result<void> DownloadSession::run_on_threads(FetchShared& shared) {
  std::mutex mu;
  std::condition_variable finished_cv;
  std::size_t finished = 0;  // guarded by mu
  // Guarded by mu: the sources of ranges done whose thread has no new work yet.
  std::vector<std::size_t> idle;
  // Guarded by mu: threads (their index in `threads`) whose range ended: joined by
  // the supervisor as they end, so a download of many steals does not keep every
  // finished thread's stack until the end.
  std::vector<std::size_t> ended;
  std::optional<Error> first_error;  // guarded by mu
  const auto end_range = [&](Result<void> outcome, std::size_t source, std::size_t thread) {
    std::lock_guard lock(mu);
    if (!outcome && !first_error) {
      first_error = outcome.error();
      shared.stop.store(true, std::memory_order_release);
    }
    if (outcome) idle.push_back(source);
    ended.push_back(thread);
    ++finished;
    finished_cv.notify_all();
  };
  std::vector<std::thread> threads;  // the supervisor's (this thread's) only
  // Starts `slot` on a thread of its own; false (and the download stops) when none starts.
  const auto start_range = [&](RangeSlot* slot, std::size_t source,
                               std::optional<Response> response) {
    try {
      threads.emplace_back([&shared, &end_range, slot, source, index = threads.size(),
                            response = std::move(response)]() mutable {
        RangeFetch fetch(shared, *slot, source, {});
        auto outcome = fetch.run(std::move(response));
        end_range(std::move(outcome), fetch.source(), index);
      });
      return true;
    } catch (const std::system_error& error) {
      std::lock_guard lock(mu);
      if (!first_error) {
        first_error =
            Error(ErrorCategory::io,
                  std::string("download: cannot start a thread for a range: ") + error.what());
      }
      shared.stop.store(true, std::memory_order_release);
      return false;
    }
  };
  // The range that continues the first response stays on the URL; the others take
  // the sources in turn, mirrors first.
  const std::size_t source_count = shared.sources->count();
  std::size_t turn = 0;
  for (std::size_t i = 0; i < slots_.size(); ++i) {
    if (slots_[i]->spec().complete()) continue;
    std::optional<Response> response;
    std::size_t source = 0;
    if (i == first_range_) {
      response = std::move(first_);
    } else {
      source = shared.sources->live_from(++turn % source_count);
    }
    if (!start_range(slots_[i].get(), source, std::move(response))) break;
  }
  std::unique_lock lock(mu);
  while (finished < threads.size()) {
    finished_cv.wait_for(lock, kDownloadSlice);
    const std::vector<std::size_t> ready = std::exchange(idle, {});
    const std::vector<std::size_t> done = std::exchange(ended, {});
    lock.unlock();
    // Each has returned from end_range, or is about to: the join is short.
    for (std::size_t index : done) threads[index].join();
    // A range that finished early takes more work from the source that served it.
    for (std::size_t i = 0; i < ready.size() && !shared.stopping(); ++i) {
      RangeSlot* taken = steal_work(shared);
      if (!taken || !start_range(taken, shared.sources->live_from(ready[i]), std::nullopt)) break;
    }
    monitor_.tick(&shared.stop);
    lock.lock();
  }
  lock.unlock();
  for (auto& thread : threads) {
    if (thread.joinable()) thread.join();
  }
  if (first_error) return *first_error;
  return {};
}

// Each dropped mirror is a note; with mirrors, the result lists what each source gave.
void DownloadSession::report_sources(const DownloadSources& sources) {
  if (options_.mirrors.empty()) return;
  result_.sources = sources.reports();
  for (const auto& source : result_.sources) {
    if (!source.dropped.empty()) note("mirror " + source.url + " dropped: " + source.dropped);
  }
  for (std::string& move : sources.moves()) note(std::move(move));
}

// Supervisor only: cuts the slot with the most unreserved bytes and appends the second
// half as a new slot (slots_ changes only here, on the calling thread, where the
// monitor reads it). Null when no rest is worth splitting.
RangeSlot* DownloadSession::steal_work(FetchShared& shared) {
  RangeSlot* victim = nullptr;
  std::uint64_t most = 0;
  for (const auto& slot : slots_) {
    const std::uint64_t rest = slot->unreserved();
    if (rest > most) {
      most = rest;
      victim = slot.get();
    }
  }
  if (!victim) return nullptr;
  const auto second = victim->cut_second_half(options_.min_range_size);
  if (!second) return nullptr;
  slots_.push_back(std::make_unique<RangeSlot>(static_cast<unsigned>(slots_.size()), *second));
  shared.range_count.fetch_add(1, std::memory_order_acq_rel);
  ++result_.steals;
  return slots_.back().get();
}

}  // namespace sluice
