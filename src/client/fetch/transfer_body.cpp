// Transfer, the body of its exchange: received bytes into the staging buffer (through
// the content decoder when the response is encoded), the room and the staged-bytes
// budget that pace the stream, the reader's activity, a dropped reader's drain, and
// the sweep of its scratch. The rest of Transfer is in transfer.cpp.
// Thread-safety: HTTP thread only, like all of Transfer.

#include <algorithm>
#include <utility>

#include "client/fetch/transfer.hpp"

namespace sluice {

namespace {

// A redirect's own body is read and dropped up to this size so its connection can be
// reused; a longer one closes the connection instead.
constexpr std::uint64_t kRedirectDrainLimit = 64 * 1024;

// A decoder step produces at most this much: the decoded scratch stays one
// receive's size however large the allowance, and past the Client's staged-bytes budget
// a reader with nothing waiting gets this much more per step, as a socket read would.
constexpr std::size_t kDecodeStep = 64 * 1024;

// How long the rest of a dropped body (less than its allowance) may take to arrive before
// its exchange is abandoned (at most the idle timeout): without a deadline of its
// own, a server that stalls would hold the connection until the Client goes.
constexpr std::chrono::milliseconds kDrainDeadline{5'000};

}  // namespace

void Transfer::on_body(std::span<const std::byte> bytes) {
  last_activity_ = services_.loop.now();
  moved_ += bytes.size();
  if (phase_ == Phase::redirect_body) {
    redirect_body_bytes_ += bytes.size();
    if (redirect_body_bytes_ > kRedirectDrainLimit) {
      exchange_.abandon();
      follow_redirect();
    }
    return;
  }
  if (phase_ != Phase::body) return;
  received_ += bytes.size();
  staging_->note_received(bytes.size());
  if (request_.max_body_size != 0 && received_ > request_.max_body_size) {
    fail(Error(ErrorCode::body_too_large, "response body exceeds the limit of " +
                                              std::to_string(request_.max_body_size) + " bytes"));
    return;
  }
  if (reader_dropped_) {
    discarded_ += bytes.size();
    if (discarded_ > staging_->allowance()) {
      exchange_.abandon();
      finished();
    }
    return;
  }
  deliver_body(bytes);
}

void Transfer::deliver_body(std::span<const std::byte> bytes) {
  if (decoding_.active()) {
    decoding_.take(bytes);
    pump_decoder();
    return;
  }
  staging_->append(bytes);
  wake_reader_at_turn_end();
  staging_->deliver_callbacks();
}

// One wake for everything this turn staged: an h2 receive carries many DATA frames
// (nginx sends 8 KiB ones), and a wake per frame costs the reader a context switch
// per frame.
void Transfer::wake_reader_at_turn_end() {
  if (reader_wake_scheduled_) return;
  reader_wake_scheduled_ = true;
  services_.loop.at_turn_end([weak = weak_from_this()] {
    if (auto self = weak.lock()) {
      self->reader_wake_scheduled_ = false;
      self->staging_->wake_reader();
    }
  });
}

// Decodes only as far as the staging buffer has room: a reader that stops reading
// also stops decompression, so a small compressed input cannot inflate past the
// allowance.
void Transfer::pump_decoder() {
  while (decoding_.active() && phase_ == Phase::body) {
    // Decoded bytes count against the Client's budget like received ones: a reader
    // with nothing waiting gets at most one receive's worth past it, as over h1.
    if (held_by_budget()) break;
    const std::size_t room = std::min(
        {staging_->room(), kDecodeStep, std::max(services_.staged_budget->left(), kDecodeStep)});
    if (room == 0) {
      // Callback mode drains on this thread: hand over, then decode on.
      if (staging_->deliver_callbacks()) continue;
      break;
    }
    auto step = decoding_.step(*staging_, room);
    if (!step) {
      fail(std::move(step).error());
      return;
    }
    if (step->produced > 0) wake_reader_at_turn_end();
    if (step->consumed == 0 && step->produced == 0) break;
  }
  if (phase_ != Phase::body) return;
  staging_->deliver_callbacks();
  if (complete_pending_ && decoding_.pending() == 0 &&
      (!decoding_.active() || staging_->room() > 0)) {
    finish_body();
  }
}

void Transfer::finish_body() {
  if (auto done = decoding_.finish(); !done) {
    fail(std::move(done).error());
    return;
  }
  staging_->finish(std::move(trailers_), services_.loop.now());
  staging_->deliver_callbacks();
  finished();
}

bool Transfer::wants_body() const {
  if (phase_ != Phase::body || reader_dropped_) return true;
  return decoding_.pending() == 0 && !staging_->paused() && !held_by_budget();
}

bool Transfer::may_extend_window() const { return !held_by_budget(); }

// Only bytes that go to the reader as received: not a redirect's body, not one for
// the decoder, not one nobody will read.
std::span<std::byte> Transfer::body_space(std::size_t max) {
  if (phase_ != Phase::body || reader_dropped_ || decoding_.active()) return {};
  return staging_->prepare(max);
}

// Each exchange starts at the request's initial allowance; the staging buffer follows
// it as the exchange's transport grows or cuts it.
void Transfer::on_allowance(std::size_t bytes) {
  if (staging_) staging_->set_allowance(bytes);
}

// HTTP/1.1 receives no more than this at once. A reader that went away, and a body
// not yet begun, take a whole receive (its head may share it with the body's start).
std::size_t Transfer::body_room() const {
  if (phase_ != Phase::body || reader_dropped_) return SIZE_MAX;
  return staging_->room();
}

// Asks the staging buffer last, since holding arms its resume: a reader that
// empties it then posts one.
bool Transfer::held_by_budget() const {
  if (phase_ != Phase::body || reader_dropped_) return false;
  StagedBudget& budget = *services_.staged_budget;
  if (!budget.limited() || !budget.exhausted() || !staging_->hold_for_budget()) return false;
  services_.owner.note_budget_held(*this);
  return true;
}

std::size_t Transfer::held_bytes() const {
  if (phase_ != Phase::body || reader_dropped_) return 0;
  const StagingBuffer::Held held = staging_->held();
  held_taken_ = held.taken;
  return held.staged + decoding_.pending();
}

void Transfer::report_taken_after(std::size_t bytes) {
  if (phase_ != Phase::body || reader_dropped_) return;
  staging_->report_when_taken(bytes == 0 ? 0 : held_taken_ + bytes);
}

bool Transfer::paused() const { return staging_ && staging_->paused(); }

bool Transfer::hold_ended_unheard() {
  if (!staging_) return false;
  const std::uint64_t ended = staging_->pauses_ended();
  return std::exchange(pauses_ended_seen_, ended) != ended;
}

// Like held_by_budget(), without arming anything: readers holding bytes while the
// Client's budget is spent keep this stream from receiving, however far below its
// allowance it is, so the silence is ours.
bool Transfer::waits_for_budget() const {
  if (phase_ != Phase::body || reader_dropped_ || !staging_) return false;
  const StagedBudget& budget = *services_.staged_budget;
  return budget.limited() && budget.left() == 0 && staging_->staged_bytes() > 0;
}

void Transfer::on_consumer_activity() {
  if (phase_ != Phase::body) return;
  if (!reader_dropped_ && staging_->reader_gone()) {
    reader_dropped();
    return;
  }
  if (decoding_.active()) {
    pump_decoder();
  } else {
    staging_->deliver_callbacks();
  }
  if (phase_ == Phase::body && exchange_.running() && wants_body()) {
    // The wait was ours (a reader at its allowance, the budget): the server's silence
    // counts from now, when it may send again, not from the idle timer's last look.
    last_activity_ = services_.loop.now();
    pauses_ended_seen_ = staging_->pauses_ended();  // heard: the timer need not count it
    exchange_.resume();
  }
}

// The reader went away unread: a body that fits in its allowance still completes (its
// connection is reused); a longer one is abandoned. When the exchange has already
// ended (a decoder was waiting for staging room), nothing more will arrive to
// complete it: it ends now.
void Transfer::reader_dropped() {
  reader_dropped_ = true;
  discarded_ = staging_->drop_staged() + decoding_.drop();
  if (complete_pending_ || discarded_ >= staging_->allowance() || staging_->paused()) {
    exchange_.abandon();
    finished();
    return;
  }
  exchange_.resume();
  arm_drain_timer();
}

void Transfer::arm_drain_timer() {
  std::chrono::milliseconds deadline = kDrainDeadline;
  const auto idle = request_.timeouts.idle;
  if (idle.count() > 0 && idle < deadline) deadline = idle;
  arm_timer_at(drain_timer_, services_.loop.now() + deadline, [](Transfer& self) {
    if (self.phase_ != Phase::body) return;
    self.exchange_.abandon();  // h1 closes the connection; h2 and h3 cancel the stream
    self.finished();
  });
}

std::size_t Transfer::sweep(std::chrono::steady_clock::time_point paused_before,
                            std::unordered_set<Connection*>& connections) {
  if (phase_ != Phase::body || !staging_->paused() || staging_->paused_since() > paused_before) {
    return 0;
  }
  const std::size_t freed = decoding_.release_scratch() + staging_->release_empty_capacity();
  if (exchange_.running()) connections.insert(exchange_.connection());
  return freed;
}

}  // namespace sluice
