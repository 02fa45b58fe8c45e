#pragma once
// LoopWatch: a uv_poll_t on the Node loop watching one fd for reading (the client's
// dispatch fd). JS thread only (libuv handles belong to their loop's thread).
//
// The handle is heap-allocated and freed by uv_close's callback, never before: the
// loop may still hold it for a turn after close(). Referenced only while someone
// waits (ref/unref), so an idle client does not keep the process alive.

#include <uv.h>

namespace sluice_node {

class LoopWatch {
 public:
  using Callback = void (*)(void* data);

  LoopWatch() = default;
  LoopWatch(const LoopWatch&) = delete;
  LoopWatch& operator=(const LoopWatch&) = delete;
  ~LoopWatch() { close(); }

  /// Starts watching `fd`; `on_readable(data)` runs on the loop's thread while it is
  /// readable. Returns a libuv error (< 0) or 0. Starts unreferenced.
  int start(uv_loop_t* loop, int fd, Callback on_readable, void* data) noexcept;
  void ref() noexcept;
  void unref() noexcept;
  /// Stops watching at once (the fd leaves epoll now, so the owner may close it right
  /// after); the memory goes in uv_close's callback. Idempotent.
  void close() noexcept;
  bool active() const noexcept { return handle_ != nullptr; }

 private:
  struct Handle {
    uv_poll_t poll;
    Callback on_readable;
    void* data;
  };
  static void on_poll(uv_poll_t* poll, int status, int events) noexcept;

  Handle* handle_ = nullptr;
};

}  // namespace sluice_node
