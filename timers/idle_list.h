#pragma once
// Connections of one thread, ordered by last activity: touching one moves it to the back
// in O(1), so the cron only ever looks at the front to find who has been idle too long.
// Intrusive: the hook lives in the connection, nothing is allocated.

#include <cstdint>

namespace rc {

struct IdleHook {
  void* owner = nullptr;  // the object the hook is embedded in
  IdleHook* prev = nullptr;
  IdleHook* next = nullptr;
  int64_t last_active_ms = 0;
  bool linked = false;
};

class IdleList {
 public:
  // Marks `h` active at `now_ms` (linking it if needed) and moves it to the back.
  void Touch(IdleHook* h, int64_t now_ms) {
    if (h->linked) Unlink(h);
    h->last_active_ms = now_ms;
    h->prev = tail_;
    h->next = nullptr;
    if (tail_ != nullptr) {
      tail_->next = h;
    } else {
      head_ = h;
    }
    tail_ = h;
    h->linked = true;
  }
  void Remove(IdleHook* h) {
    if (h->linked) Unlink(h);
  }
  // The least recently active, or nullptr.
  IdleHook* Oldest() const { return head_; }
  bool empty() const { return head_ == nullptr; }

 private:
  void Unlink(IdleHook* h) {
    (h->prev ? h->prev->next : head_) = h->next;
    (h->next ? h->next->prev : tail_) = h->prev;
    h->prev = h->next = nullptr;
    h->linked = false;
  }

  IdleHook* head_ = nullptr;
  IdleHook* tail_ = nullptr;
};

}  // namespace rc
