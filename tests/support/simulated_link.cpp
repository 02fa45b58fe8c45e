// SimulatedLink (see simulated_link.hpp).
// Ownership: one test, one thread.

#include "support/simulated_link.hpp"

#include <algorithm>
#include <utility>

namespace sluice::test {

SimulatedLink::SimulatedLink(ManualClock& clock, LinkProfile profile)
    : clock_(clock), profile_(std::move(profile)), random_(profile_.seed) {}

void SimulatedLink::attach(DatagramCodec& client, LinkServer& server) {
  client_ = &client;
  server_ = &server;
}

bool SimulatedLink::run_until(const std::function<bool()>& done, std::chrono::milliseconds limit) {
  const TimePoint end = clock_.now() + limit;
  while (!done()) {
    step();
    if (done()) return true;
    const std::optional<TimePoint> next = next_event();
    if (!next || *next > end) return false;
    if (*next > clock_.now()) clock_.advance(*next - clock_.now());
    deliver_due();
    fire_due_deadlines();
  }
  return true;
}

// Both sides write what they have now, as a driver's event end would.
void SimulatedLink::step() {
  write_client();
  write_server();
}

void SimulatedLink::write_client() {
  // Like DatagramDriver::finish_event: rounds while the codec asks for more.
  for (int round = 0; round < 64 && write_wanted_ && !closed_; ++round) {
    write_wanted_ = false;
    client_->write_datagrams(batch_, clock_.now());
    for (const DatagramBatch::Run& run : batch_.runs()) {
      const std::span<const std::uint8_t> bytes = batch_.bytes_of(run);
      for (std::size_t at = 0; at < bytes.size(); at += run.segment) {
        const std::size_t size = std::min(run.segment, bytes.size() - at);
        launch({bytes.begin() + at, bytes.begin() + at + size}, true);
      }
    }
    batch_.clear();
  }
}

void SimulatedLink::write_server() {
  for (auto& datagram : server_->send(clock_.now())) launch(std::move(datagram), false);
}

bool SimulatedLink::send_now(std::span<const std::uint8_t> datagram) {
  if (closed_) return false;
  launch({datagram.begin(), datagram.end()}, true);
  return true;
}

void SimulatedLink::launch(std::vector<std::uint8_t> bytes, bool to_server) {
  const std::size_t index = to_server ? client_index_++ : server_index_++;
  const auto& scripted = to_server ? profile_.drop_from_client : profile_.drop_from_server;
  std::uniform_real_distribution<double> percent(0, 100);
  if ((scripted && scripted(index)) || percent(random_) < profile_.loss_percent) {
    ++lost_;
    return;
  }
  TimePoint arrives = clock_.now() + profile_.one_way_delay;
  if (percent(random_) < profile_.reorder_percent) {
    arrives += profile_.reorder_delay;
    ++reordered_;
  }
  in_flight_.push_back({arrives, to_server, std::move(bytes)});
}

std::optional<TimePoint> SimulatedLink::next_event() const {
  std::optional<TimePoint> next;
  const auto consider = [&](std::optional<TimePoint> when) {
    if (when && (!next || *when < *next)) next = when;
  };
  for (const InFlight& datagram : in_flight_) consider(datagram.arrives);
  if (!closed_) consider(client_->next_deadline());
  consider(server_->next_expiry());
  return next;
}

// In arrival order; equal times keep the order they were sent in.
void SimulatedLink::deliver_due() {
  std::stable_sort(in_flight_.begin(), in_flight_.end(),
                   [](const InFlight& a, const InFlight& b) { return a.arrives < b.arrives; });
  const TimePoint now = clock_.now();
  const auto due_end = std::find_if(in_flight_.begin(), in_flight_.end(),
                                    [&](const InFlight& d) { return d.arrives > now; });
  std::vector<InFlight> due(std::make_move_iterator(in_flight_.begin()),
                            std::make_move_iterator(due_end));
  in_flight_.erase(in_flight_.begin(), due_end);
  for (const InFlight& datagram : due) {
    if (datagram.to_server) {
      server_->receive(datagram.bytes, now);
    } else if (!closed_) {
      client_->on_datagram(datagram.bytes, now);
      write_wanted_ = true;  // an arrival may be acknowledged or answered
    }
  }
}

void SimulatedLink::fire_due_deadlines() {
  const TimePoint now = clock_.now();
  if (!closed_) {
    const std::optional<TimePoint> due = client_->next_deadline();
    if (due && *due <= now) {
      client_->on_deadline(now);
      write_wanted_ = true;
    }
  }
  const std::optional<TimePoint> expiry = server_->next_expiry();
  if (expiry && *expiry <= now) server_->on_expiry(now);
}

}  // namespace sluice::test
