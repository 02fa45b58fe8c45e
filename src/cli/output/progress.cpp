#include "cli/output/progress.hpp"

#include <algorithm>

#include "cli/cli_clock.hpp"
#include "cli/output/terminal.hpp"

namespace sluice::cli {
namespace {

constexpr std::size_t kFallbackColumns = 80;
constexpr std::size_t kFallbackRows = 24;

double seconds_between(std::chrono::steady_clock::time_point from,
                       std::chrono::steady_clock::time_point to) {
  return std::chrono::duration<double>(to - from).count();
}

// Average speed of the bytes this run fetched (resumed bytes were already there).
double average_speed(std::uint64_t fetched, double elapsed_s) {
  return elapsed_s > 0 ? static_cast<double>(fetched) / elapsed_s : 0;
}

// Splits a message into its lines; a trailing newline adds no empty line.
std::vector<std::string> message_lines(std::string_view message) {
  std::vector<std::string> lines;
  while (!message.empty()) {
    std::size_t end = message.find('\n');
    lines.emplace_back(message.substr(0, end));
    if (end == std::string_view::npos) break;
    message.remove_prefix(end + 1);
  }
  return lines;
}

}  // namespace

std::optional<ProgressMode> parse_progress_mode(std::string_view text) {
  if (text == "bar") return ProgressMode::bar;
  if (text == "line") return ProgressMode::line;
  if (text == "none") return ProgressMode::none;
  return std::nullopt;
}

ProgressMode default_progress_mode(bool stderr_is_terminal) {
  return stderr_is_terminal ? ProgressMode::bar : ProgressMode::none;
}

// One transfer's state. Guarded by ProgressDisplay::state_mu_.
struct ProgressDisplay::Transfer {
  std::string label;
  DownloadProgress progress;
  TimePoint added_at;
  TimePoint ended_at;
  bool started = false;  // an update() arrived
  bool ended = false;
  bool ok = false;
  bool final_shown = false;  // its final line went out
};

// What one draw prints, copied out of the state so that formatting and writing
// happen without state_mu_ (download threads never wait for the terminal).
struct ProgressDisplay::Frame {
  std::vector<ProgressLine> finals;   // ended since the last frame, to print once
  std::vector<ProgressLine> live;     // running
  std::optional<ProgressLine> total;  // more than one transfer
  std::vector<std::string> messages;
  std::size_t longest_name = 0;
};

ProgressDisplay::ProgressDisplay(ProgressDisplayOptions options) : options_(std::move(options)) {
  if (!options_.clock) options_.clock = cli_now;
  if (!options_.sink) options_.sink = [](std::string_view text) { write_all_to_fd(2, text); };
  started_at_ = now();
}

ProgressDisplay::~ProgressDisplay() { finish(); }

ProgressDisplay::TimePoint ProgressDisplay::now() const { return options_.clock(); }

std::chrono::milliseconds ProgressDisplay::interval() const {
  return options_.mode == ProgressMode::line ? options_.line_interval : options_.bar_interval;
}

std::size_t ProgressDisplay::add(std::string label) {
  TimePoint at = now();
  std::lock_guard lock(state_mu_);
  Transfer& transfer = transfers_.emplace_back();
  transfer.label = std::move(label);
  transfer.added_at = at;
  return transfers_.size() - 1;
}

void ProgressDisplay::update(std::size_t index, const DownloadProgress& progress) {
  std::lock_guard lock(state_mu_);
  if (index >= transfers_.size() || transfers_[index].ended) return;
  transfers_[index].progress = progress;
  transfers_[index].started = true;
}

void ProgressDisplay::end(std::size_t index, bool ok) {
  TimePoint at = now();
  {
    std::lock_guard lock(state_mu_);
    if (index >= transfers_.size() || transfers_[index].ended) return;
    transfers_[index].ended = true;
    transfers_[index].ok = ok;
    transfers_[index].ended_at = at;
  }
  if (options_.mode != ProgressMode::line) return;  // bars: the next frame shows it
  std::lock_guard lock(draw_mu_);
  if (!drew_last_) draw(FrameKind::finals_only, {});
}

void ProgressDisplay::print(std::string_view message) {
  std::lock_guard lock(draw_mu_);
  if (options_.mode == ProgressMode::bar && !drew_last_) {
    draw(FrameKind::periodic, message);
    return;
  }
  std::string text;
  for (const std::string& line : message_lines(message)) text += line + "\n";
  write(text);
}

void ProgressDisplay::start() {
  if (options_.mode == ProgressMode::none || render_thread_.joinable()) return;
  {
    std::lock_guard lock(thread_mu_);
    if (stopping_) return;
  }
  render_thread_ = std::thread([this] { render_loop(); });
}

void ProgressDisplay::render_loop() {
  std::unique_lock lock(thread_mu_);
  while (!stopping_) {
    wake_.wait_for(lock, interval(), [this] { return stopping_; });
    if (stopping_) break;
    lock.unlock();
    tick();
    lock.lock();
  }
}

void ProgressDisplay::tick() {
  if (options_.mode == ProgressMode::none) return;
  std::lock_guard lock(draw_mu_);
  if (drew_last_) return;
  if (last_frame_ && now() - *last_frame_ < interval()) return;
  draw(FrameKind::periodic, {});
}

void ProgressDisplay::finish() {
  {
    std::lock_guard lock(thread_mu_);
    stopping_ = true;
  }
  wake_.notify_all();
  if (render_thread_.joinable()) render_thread_.join();
  std::lock_guard lock(draw_mu_);
  if (drew_last_) return;
  draw(FrameKind::last, {});
  drew_last_ = true;
}

// Called with draw_mu_ held.
void ProgressDisplay::draw(FrameKind kind, std::string_view message) {
  Frame frame = take_frame(kind);
  frame.messages = message_lines(message);
  last_frame_ = now();
  if (options_.mode == ProgressMode::bar) {
    write(bar_text(frame, kind == FrameKind::last));
  } else if (options_.mode == ProgressMode::line) {
    if (kind == FrameKind::finals_only) frame.live.clear();
    write(plain_text(frame));
  } else {
    std::string text;
    for (const std::string& line : frame.messages) text += line + "\n";
    write(text);
  }
}

ProgressDisplay::Frame ProgressDisplay::take_frame(FrameKind kind) {
  const TimePoint at = now();
  std::lock_guard lock(state_mu_);
  Frame frame;
  for (Transfer& transfer : transfers_) {
    if (kind == FrameKind::last && transfer.started && !transfer.ended) {
      // Not ended by its owner: complete only if its last report said so.
      const DownloadProgress& last = transfer.progress;
      transfer.ended = true;
      transfer.ok = last.finished && (!last.total || last.bytes_done >= *last.total);
      transfer.ended_at = at;
    }
    ProgressLine line = line_for(transfer, at);
    frame.longest_name = std::max(frame.longest_name, display_width(sanitize_name(line.name)));
    if (transfer.ended && !transfer.final_shown) {
      transfer.final_shown = true;
      frame.finals.push_back(std::move(line));
    } else if (transfer.started && !transfer.ended) {
      frame.live.push_back(std::move(line));
    }
  }
  if (transfers_.size() > 1) {
    frame.total = total_for(at, kind == FrameKind::last);
    frame.longest_name = std::max(frame.longest_name, display_width(frame.total->name));
  }
  return frame;
}

// Called with state_mu_ held.
ProgressLine ProgressDisplay::line_for(const Transfer& transfer, TimePoint now) {
  const DownloadProgress& progress = transfer.progress;
  ProgressLine line;
  line.name = progress.path.empty() ? transfer.label : std::string(base_name(progress.path));
  line.bytes_done = progress.bytes_done;
  line.total = progress.total;
  if (!transfer.ended) {
    line.bytes_per_second = progress.bytes_per_second;
    line.elapsed_s = seconds_between(transfer.added_at, now);
    return line;
  }
  line.state = transfer.ok ? ProgressLine::State::done : ProgressLine::State::failed;
  line.elapsed_s = seconds_between(transfer.added_at, transfer.ended_at);
  const std::uint64_t fetched =
      progress.bytes_done > progress.resumed_from ? progress.bytes_done - progress.resumed_from : 0;
  line.bytes_per_second = average_speed(fetched, line.elapsed_s);
  return line;
}

// Called with state_mu_ held. The total is known only when every transfer's is.
ProgressLine ProgressDisplay::total_for(TimePoint now, bool last) const {
  ProgressLine line;
  std::uint64_t total = 0, fetched = 0;
  bool totals_known = true, all_ok = true;
  std::size_t ok_count = 0;
  double speed = 0;
  for (const Transfer& transfer : transfers_) {
    const DownloadProgress& progress = transfer.progress;
    line.bytes_done += progress.bytes_done;
    if (progress.bytes_done > progress.resumed_from) {
      fetched += progress.bytes_done - progress.resumed_from;
    }
    totals_known = totals_known && progress.total.has_value();
    total += progress.total.value_or(0);
    ok_count += transfer.ended && transfer.ok ? 1 : 0;
    all_ok = all_ok && transfer.ended && transfer.ok;
    if (transfer.started && !transfer.ended) speed += progress.bytes_per_second;
  }
  line.name = "total " + std::to_string(ok_count) + "/" + std::to_string(transfers_.size());
  if (totals_known) line.total = total;
  line.elapsed_s = seconds_between(started_at_, now);
  if (!last) {
    line.bytes_per_second = speed;
    return line;
  }
  line.state = all_ok ? ProgressLine::State::done : ProgressLine::State::failed;
  line.bytes_per_second = average_speed(fetched, line.elapsed_s);
  return line;
}

// Called with draw_mu_ held. The cursor stays at the start of the row below the live
// lines, so a frame is: up over the live rows, then every row rewritten and cleared
// to its end, the last one clearing the screen below it (the live block may have
// shrunk) before its newline. Nothing follows the last newline.
std::string ProgressDisplay::bar_text(const Frame& frame, bool last) {
  std::size_t columns = options_.columns, rows = options_.rows;
  if (columns == 0 || rows == 0) {
    std::optional<TerminalSize> size = terminal_size(2);
    if (columns == 0) columns = size ? size->columns : kFallbackColumns;
    if (rows == 0) rows = size && size->rows > 0 ? size->rows : kFallbackRows;
  }
  const BarLayout layout = choose_bar_layout(columns, frame.longest_name);
  ++phase_;
  std::vector<std::string> permanent, live;
  for (const ProgressLine& line : frame.finals) {
    permanent.push_back(format_bar_line(line, layout, phase_));
  }
  permanent.insert(permanent.end(), frame.messages.begin(), frame.messages.end());
  if (last && frame.total) permanent.push_back(format_bar_line(*frame.total, layout, phase_));
  if (!last) live = live_rows(frame, layout, rows);
  std::string live_joined;
  for (const std::string& row : live) live_joined += row + "\n";
  if (!last && permanent.empty() && live_joined == last_live_) return "";

  std::string text;
  if (live_lines_ > 0) text += "\r\x1b[" + std::to_string(live_lines_) + "A";
  const std::size_t count = permanent.size() + live.size();
  for (std::size_t i = 0; i < count; ++i) {
    const std::string& row = i < permanent.size() ? permanent[i] : live[i - permanent.size()];
    text += "\r" + row + (i + 1 == count ? "\x1b[J\n" : "\x1b[K\n");
  }
  if (count == 0 && live_lines_ > 0) text += "\x1b[J";
  live_lines_ = live.size();
  last_live_ = std::move(live_joined);
  return text;
}

// The live rows of a frame: running transfers, as many as the terminal has rows
// for (cursor-up cannot reach above the screen), a count of the rest, the total.
std::vector<std::string> ProgressDisplay::live_rows(const Frame& frame, const BarLayout& layout,
                                                    std::size_t rows) const {
  const std::size_t budget = rows > 1 ? rows - 1 : 1;
  const std::size_t reserved = frame.total ? 1 : 0;
  std::size_t shown = frame.live.size();
  if (shown + reserved > budget) shown = budget > reserved + 1 ? budget - reserved - 1 : 0;
  std::vector<std::string> live;
  for (std::size_t i = 0; i < shown; ++i) {
    live.push_back(format_bar_line(frame.live[i], layout, phase_));
  }
  if (shown < frame.live.size()) {
    std::string more = "... " + std::to_string(frame.live.size() - shown) + " more running";
    live.push_back(more.substr(0, layout.columns > 1 ? layout.columns - 1 : 1));
  }
  if (frame.total) live.push_back(format_bar_line(*frame.total, layout, phase_));
  return live;
}

std::string ProgressDisplay::plain_text(const Frame& frame) const {
  std::string text;
  for (const ProgressLine& line : frame.finals) text += format_plain_line(line) + "\n";
  for (const std::string& message : frame.messages) text += message + "\n";
  for (const ProgressLine& line : frame.live) text += format_plain_line(line) + "\n";
  if (frame.total && frame.total->state != ProgressLine::State::running) {
    text += format_plain_line(*frame.total) + "\n";
  }
  return text;
}

void ProgressDisplay::write(std::string_view text) {
  if (!text.empty()) options_.sink(text);
}

}  // namespace sluice::cli
