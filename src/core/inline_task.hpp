#pragma once
// InlineTask: a move-only `void()` callable that keeps a small callable inside itself
// and only a larger one on the heap. std::function keeps 16 bytes inline, so each
// lambda the library posts to the HTTP thread (a shared_ptr and a pointer or two)
// cost a malloc and a free per post, several per request for many small requests.
// 48 bytes hold every task the library posts, runs at a turn's end or arms as a timer.
// Move-only, unlike std::function, so a task may own what it captures.
// Ownership: a value, like std::function; moved between threads only under the lock
// of whatever queue holds it (EventLoop's posted_mu_).

#include <cstddef>
#include <new>
#include <type_traits>
#include <utility>

namespace sluice {

class InlineTask {
 public:
  static constexpr std::size_t kInlineBytes = 48;

  InlineTask() noexcept = default;
  InlineTask(std::nullptr_t) noexcept {}  // NOLINT(google-explicit-constructor)

  template <typename F, typename D = std::decay_t<F>,
            typename =
                std::enable_if_t<!std::is_same_v<D, InlineTask> && std::is_invocable_r_v<void, D&>>>
  InlineTask(F&& callable) {  // NOLINT(google-explicit-constructor): as std::function
    if constexpr (kFitsInline<D>) {
      ::new (static_cast<void*>(storage_)) D(std::forward<F>(callable));
      ops_ = &kInlineOps<D>;
    } else {
      ::new (static_cast<void*>(storage_)) D*(new D(std::forward<F>(callable)));
      ops_ = &kHeapOps<D>;
    }
  }

  InlineTask(InlineTask&& other) noexcept { take(other); }
  InlineTask& operator=(InlineTask&& other) noexcept {
    if (this != &other) {
      reset();
      take(other);
    }
    return *this;
  }
  InlineTask(const InlineTask&) = delete;
  InlineTask& operator=(const InlineTask&) = delete;
  ~InlineTask() { reset(); }

  explicit operator bool() const noexcept { return ops_ != nullptr; }
  /// Runs the callable; an empty task does nothing.
  void operator()() {
    if (ops_ != nullptr) ops_->invoke(storage_);
  }

 private:
  struct Ops {
    void (*invoke)(void* storage);
    void (*move)(void* from, void* to) noexcept;  // constructs in `to`, destroys `from`
    void (*destroy)(void* storage) noexcept;
  };

  template <typename D>
  static constexpr bool kFitsInline =
      sizeof(D) <= kInlineBytes &&
      alignof(D) <= alignof(std::max_align_t) && std::is_nothrow_move_constructible_v<D>;

  template <typename D>
  static constexpr Ops kInlineOps{
      [](void* storage) { (*std::launder(static_cast<D*>(storage)))(); },
      [](void* from, void* to) noexcept {
        D* source = std::launder(static_cast<D*>(from));
        ::new (to) D(std::move(*source));
        source->~D();
      },
      [](void* storage) noexcept { std::launder(static_cast<D*>(storage))->~D(); },
  };

  template <typename D>
  static constexpr Ops kHeapOps{
      [](void* storage) { (**std::launder(static_cast<D**>(storage)))(); },
      [](void* from, void* to) noexcept { ::new (to) D*(*std::launder(static_cast<D**>(from))); },
      [](void* storage) noexcept { delete *std::launder(static_cast<D**>(storage)); },
  };

  void take(InlineTask& other) noexcept {
    if (other.ops_ == nullptr) return;
    other.ops_->move(other.storage_, storage_);
    ops_ = std::exchange(other.ops_, nullptr);
  }
  void reset() noexcept {
    if (ops_ == nullptr) return;
    std::exchange(ops_, nullptr)->destroy(storage_);
  }

  alignas(std::max_align_t) unsigned char storage_[kInlineBytes];
  const Ops* ops_ = nullptr;
};

}  // namespace sluice
