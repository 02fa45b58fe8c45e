#include "loop_watch.hpp"

#include <new>

namespace sluice_node {

int LoopWatch::start(uv_loop_t* loop, int fd, Callback on_readable, void* data) noexcept {
  close();
  auto* handle = new (std::nothrow) Handle{};
  if (handle == nullptr) return UV_ENOMEM;
  handle->on_readable = on_readable;
  handle->data = data;
  handle->poll.data = handle;
  int rv = uv_poll_init(loop, &handle->poll, fd);
  if (rv != 0) {
    delete handle;  // uv_poll_init failed: the loop does not know the handle
    return rv;
  }
  rv = uv_poll_start(&handle->poll, UV_READABLE, &LoopWatch::on_poll);
  handle_ = handle;
  if (rv != 0) {
    close();
    return rv;
  }
  uv_unref(reinterpret_cast<uv_handle_t*>(&handle->poll));
  return 0;
}

void LoopWatch::ref() noexcept {
  if (handle_ != nullptr) uv_ref(reinterpret_cast<uv_handle_t*>(&handle_->poll));
}

void LoopWatch::unref() noexcept {
  if (handle_ != nullptr) uv_unref(reinterpret_cast<uv_handle_t*>(&handle_->poll));
}

void LoopWatch::close() noexcept {
  if (handle_ == nullptr) return;
  Handle* handle = handle_;
  handle_ = nullptr;
  handle->on_readable = nullptr;  // a poll event of this turn finds nobody
  // uv_close on a poll handle takes the fd out of epoll before it returns.
  uv_close(reinterpret_cast<uv_handle_t*>(&handle->poll),
           [](uv_handle_t* closed) { delete static_cast<Handle*>(closed->data); });
}

void LoopWatch::on_poll(uv_poll_t* poll, int status, int events) noexcept {
  auto* handle = static_cast<Handle*>(poll->data);
  // An error status (the fd went bad) still runs the callback: dispatch reads the fd
  // and reports what happened through the callbacks it runs.
  if (handle->on_readable != nullptr) handle->on_readable(handle->data);
}

}  // namespace sluice_node
