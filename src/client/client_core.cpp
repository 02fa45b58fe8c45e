#include "client/client_core.hpp"

#include <vector>

#include "client/transfer.hpp"

namespace sluice {

namespace {
// DESIGN.md: every 4 s the HTTP thread frees empty scratch of paused receivers.
constexpr std::chrono::seconds kSweepInterval{4};
}  // namespace

bool HttpPoster::post(EventLoop::Task task) {
  std::lock_guard lock(mu_);
  if (loop_ == nullptr) return false;
  loop_->post(std::move(task));
  return true;
}

void HttpPoster::close() {
  std::lock_guard lock(mu_);
  loop_ = nullptr;
}

ClientCore::ClientCore(ClientOptions options, std::shared_ptr<TlsContext> tls)
    : options_(std::move(options)),
      trace_(options_.trace),
      poster_(std::make_shared<HttpPoster>(loop_)),
      file_pool_(options_.file_threads),
      resolver_(loop_),
      tls_(std::move(tls)),
      pool_(*this) {}

ClientCore::~ClientCore() { shutdown(); }

Result<std::shared_ptr<const QuicTlsContext>> ClientCore::quic_tls() {
  if (!quic_tls_) {
    auto made = QuicTlsContext::create(options_.ca_file, options_.insecure);
    if (!made) return std::move(made).error();
    quic_tls_ = std::move(*made);
  }
  return quic_tls_;
}

void ClientCore::start() {
  thread_ = std::thread([this] {
    arm_sweep();
    loop_.run();
  });
}

void ClientCore::shutdown() {
  if (!thread_.joinable()) return;
  poster_->post([this] {
    cancel_everything();
    loop_.stop();
  });
  thread_.join();
  poster_->close();
}

void ClientCore::cancel_everything() {
  std::vector<std::shared_ptr<Transfer>> live;
  live.reserve(transfers_.size());
  for (auto& [raw, transfer] : transfers_) live.push_back(transfer);
  for (auto& transfer : live) {
    transfer->fail(Error(ErrorCategory::cancelled, "the client was destroyed"));
  }
  pool_.close_all();
}

void ClientCore::adopt(std::shared_ptr<Transfer> transfer) {
  Transfer* raw = transfer.get();
  transfers_.emplace(raw, std::move(transfer));
  raw->begin();
}

void ClientCore::transfer_done(Transfer& transfer) {
  auto found = transfers_.find(&transfer);
  if (found == transfers_.end()) return;
  // Usually called from inside the transfer's own events: destroy it afterwards.
  auto doomed = std::move(found->second);
  transfers_.erase(found);
  loop_.post([doomed] {});
}

ClientStats ClientCore::stats() const {
  ClientStats stats;
  for (const auto& [raw, transfer] : transfers_) {
    const TransferStats one = transfer->stats();
    ++stats.in_flight;
    if (one.paused) ++stats.paused_receivers;
    stats.staged_bytes += one.staged_bytes;
    stats.retained_scratch_bytes += one.scratch_bytes;
    stats.request_body_bytes_held += one.request_body_bytes;
  }
  stats.connections = pool_.connection_count();
  stats.sweep_releases = sweep_releases_;
  stats.sweep_bytes_released = sweep_bytes_released_;
  return stats;
}

void ClientCore::arm_sweep() {
  loop_.add_timer(loop_.now() + kSweepInterval, [this] {
    for (auto& [raw, transfer] : transfers_) {
      const std::size_t freed = transfer->sweep();
      if (freed > 0) {
        ++sweep_releases_;
        sweep_bytes_released_ += freed;
      }
    }
    arm_sweep();
  });
}

}  // namespace sluice
