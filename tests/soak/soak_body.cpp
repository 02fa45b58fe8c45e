// Body reading behaviours and checks for sluice-soak.

#include "soak/soak_body.hpp"

#include <algorithm>
#include <chrono>
#include <condition_variable>
#include <cstring>
#include <mutex>
#include <optional>
#include <thread>
#include <vector>

namespace sluice::soak {
namespace {

using namespace std::chrono_literals;
using Clock = std::chrono::steady_clock;

// A callback body that neither delivers, pauses nor ends for this long is stuck.
constexpr auto kCallbackStall = 30s;

std::string hex(const unsigned char* digest, unsigned int length) {
  static constexpr char kHex[] = "0123456789abcdef";
  std::string out;
  for (unsigned int i = 0; i < length; ++i) {
    out += kHex[digest[i] >> 4];
    out += kHex[digest[i] & 0xf];
  }
  return out;
}

std::size_t random_read_size(Rng& rng) {
  static constexpr std::size_t kSizes[] = {1, 100, 4096, 16384, 65536, 262144, 1 << 20};
  return kSizes[std::uniform_int_distribution<std::size_t>(0, std::size(kSizes) - 1)(rng)];
}

// What the callbacks of read_by_callbacks share with the waiting worker: they run on
// the HTTP thread, and may outlive the worker's frame if the body is dropped early,
// so they hold it by shared_ptr. Guarded by mu.
struct CallbackState {
  std::mutex mu;
  std::condition_variable changed;
  BodyCheck* check = nullptr;  // reset by the worker before it returns
  std::uint64_t chunks = 0;
  std::uint64_t pause_every = 0;
  bool paused = false;
  std::optional<Result<void>> end;
};

}  // namespace

BodyCheck::BodyCheck(Expected expected)
    : expected_(std::move(expected)), sha_(EVP_MD_CTX_new(), EVP_MD_CTX_free) {
  if (!expected_.sha256.empty()) EVP_DigestInit_ex(sha_.get(), EVP_sha256(), nullptr);
}

void BodyCheck::add(std::span<const std::byte> bytes) {
  if (!expected_.sha256.empty()) EVP_DigestUpdate(sha_.get(), bytes.data(), bytes.size());
  if (expected_.sha256.empty() && !differs_) {
    if (bytes_ + bytes.size() > expected_.exact.size() ||
        std::memcmp(expected_.exact.data() + bytes_, bytes.data(), bytes.size()) != 0) {
      differs_ = true;
    }
  }
  bytes_ += bytes.size();
}

std::string BodyCheck::mismatch() {
  if (bytes_ != expected_.size) {
    return "body of " + std::to_string(bytes_) + " bytes, expected " +
           std::to_string(expected_.size);
  }
  if (expected_.sha256.empty()) return differs_ ? "body bytes differ from what was sent" : "";
  unsigned char digest[EVP_MAX_MD_SIZE];
  unsigned int length = 0;
  EVP_DigestFinal_ex(sha_.get(), digest, &length);
  const std::string got = hex(digest, length);
  return got == expected_.sha256 ? "" : "body sha256 " + got + ", expected " + expected_.sha256;
}

Result<void> read_to_end(BodyReader& body, BodyCheck& check, Rng& rng, bool slow) {
  std::vector<std::byte> buffer(1 << 20);
  const Clock::time_point slow_until = Clock::now() + (slow ? 1500ms : 0ms);
  for (;;) {
    const bool slow_now = Clock::now() < slow_until;
    const std::size_t want = slow_now ? 16384 : random_read_size(rng);
    auto got = body.read(std::span(buffer).first(want));
    if (!got) return std::move(got).error();
    if (*got == 0) return {};
    check.add(std::span(buffer).first(*got));
    if (slow_now) {
      std::this_thread::sleep_for(
          std::chrono::milliseconds(std::uniform_int_distribution<int>(1, 8)(rng)));
    }
  }
}

Result<void> read_some(BodyReader& body, BodyCheck& check, std::uint64_t limit) {
  std::vector<std::byte> buffer(64 * 1024);
  while (check.bytes() < limit) {
    auto got = body.read(buffer);
    if (!got) return std::move(got).error();
    if (*got == 0) return {};
    check.add(std::span(buffer).first(*got));
  }
  return {};
}

Result<void> read_by_callbacks(BodyReader& body, BodyCheck& check, Rng& rng) {
  auto state = std::make_shared<CallbackState>();
  state->check = &check;
  state->pause_every = std::uniform_int_distribution<std::uint64_t>(2, 40)(rng);
  CallbackBody callbacks = std::move(body).on_data(
      [state](std::span<const std::byte> bytes) {
        std::lock_guard lock(state->mu);
        if (state->check != nullptr) state->check->add(bytes);
        if (++state->chunks % state->pause_every != 0) return true;
        state->paused = true;
        state->changed.notify_all();
        return false;
      },
      [state](Result<void> status) {
        std::lock_guard lock(state->mu);
        state->end.emplace(std::move(status));
        state->changed.notify_all();
      });
  std::unique_lock lock(state->mu);
  for (;;) {
    const std::uint64_t chunks = state->chunks;
    if (!state->changed.wait_for(lock, kCallbackStall,
                                 [&] { return state->paused || state->end.has_value(); }) &&
        state->chunks == chunks) {
      state->check = nullptr;
      return Error(ErrorCategory::timeout,
                   "soak: callback mode stalled: no chunk, no pause and no end for 30 s after " +
                       std::to_string(check.bytes()) + " bytes");
    }
    if (!state->paused && !state->end) continue;
    if (state->end) break;
    state->paused = false;
    lock.unlock();
    std::this_thread::sleep_for(
        std::chrono::milliseconds(std::uniform_int_distribution<int>(1, 5)(rng)));
    callbacks.resume();
    lock.lock();
  }
  state->check = nullptr;
  return std::move(*state->end);
}

}  // namespace sluice::soak
