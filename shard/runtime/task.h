#pragma once
// A move-only `void() &&` callable that keeps closures of up to kInlineBytes inside
// itself. Tasks are made on one thread and destroyed on another (mailbox.h): a closure
// on the heap is then malloc'd on the sender and freed on the receiver, and a burst of
// them (a pipeline of cross-shard commands) overflows glibc's per-thread cache on both
// sides, so every allocation past it takes the arena's lock, which the threads share.
// absl::AnyInvocable keeps only 16 bytes inline: one shared_ptr and nothing else.

#include <cstddef>
#include <new>
#include <type_traits>
#include <utility>

namespace rc {

class Task {
 public:
  static constexpr size_t kInlineBytes = 48;

  Task() = default;
  Task(std::nullptr_t) {}  // NOLINT: as AnyInvocable, "no task"
  template <typename F, typename = std::enable_if_t<!std::is_same_v<std::decay_t<F>, Task> &&
                                                    std::is_invocable_v<std::decay_t<F>&&>>>
  Task(F&& f) {  // NOLINT: implicit, as AnyInvocable, so lambdas pass where a Task goes
    using Fn = std::decay_t<F>;
    if constexpr (Inline<Fn>()) {
      ::new (static_cast<void*>(buf_)) Fn(std::forward<F>(f));
      ops_ = &kInlineOps<Fn>;
    } else {
      *reinterpret_cast<Fn**>(buf_) = new Fn(std::forward<F>(f));
      ops_ = &kHeapOps<Fn>;
    }
  }
  Task(Task&& o) noexcept : ops_(o.ops_) {
    if (ops_ != nullptr) ops_->relocate(buf_, o.buf_);
    o.ops_ = nullptr;
  }
  Task& operator=(Task&& o) noexcept {
    if (this != &o) {
      Reset();
      ops_ = o.ops_;
      if (ops_ != nullptr) ops_->relocate(buf_, o.buf_);
      o.ops_ = nullptr;
    }
    return *this;
  }
  Task& operator=(std::nullptr_t) noexcept {
    Reset();
    return *this;
  }
  Task(const Task&) = delete;
  Task& operator=(const Task&) = delete;
  ~Task() { Reset(); }

  explicit operator bool() const { return ops_ != nullptr; }
  // Runs the task; it must hold one. What it captured is destroyed with the Task.
  void operator()() && { ops_->invoke(buf_); }

 private:
  struct Ops {
    void (*invoke)(void* buf);
    // Moves the callable from `src` into the empty `dst` and destroys what is left at src.
    void (*relocate)(void* dst, void* src) noexcept;
    void (*destroy)(void* buf) noexcept;
  };

  template <typename Fn>
  static constexpr bool Inline() {
    return sizeof(Fn) <= kInlineBytes && alignof(Fn) <= alignof(std::max_align_t) &&
           std::is_nothrow_move_constructible_v<Fn>;
  }
  template <typename Fn>
  static constexpr Ops kInlineOps = {
      [](void* buf) { std::move(*std::launder(static_cast<Fn*>(buf)))(); },
      [](void* dst, void* src) noexcept {
        Fn* from = std::launder(static_cast<Fn*>(src));
        ::new (dst) Fn(std::move(*from));
        from->~Fn();
      },
      [](void* buf) noexcept { std::launder(static_cast<Fn*>(buf))->~Fn(); },
  };
  template <typename Fn>
  static constexpr Ops kHeapOps = {
      [](void* buf) { std::move(**static_cast<Fn**>(buf))(); },
      [](void* dst, void* src) noexcept { *static_cast<Fn**>(dst) = *static_cast<Fn**>(src); },
      [](void* buf) noexcept { delete *static_cast<Fn**>(buf); },
  };

  void Reset() noexcept {
    if (ops_ != nullptr) ops_->destroy(buf_);
    ops_ = nullptr;
  }

  alignas(std::max_align_t) unsigned char buf_[kInlineBytes];
  const Ops* ops_ = nullptr;
};

}  // namespace rc
