#pragma once
// Cross-thread messages between worker threads. A message is a task that runs on the
// destination thread. A sender batches tasks per destination during its loop turn
// (Outbox) and hands each batch over with one lock at the end of the turn (Inbox). A
// destination that is asleep in its ring is woken through the Waker, which the network
// layer implements with IORING_OP_MSG_RING.

#include <atomic>
#include <cstdint>
#include <mutex>
#include <utility>
#include <vector>

#include "shard/runtime/task.h"

namespace rc {

// A task on its way to another thread. `while_busy`: it may run while that thread's
// script is busy (ShardThread::RunInboxWhileBusy), as hop batches, which then answer
// -BUSY, and their replies may; every other task waits for the script to end.
struct Message {
  Message(Task t, bool busy_ok = false) : task(std::move(t)), while_busy(busy_ok) {}  // NOLINT
  Task task;
  bool while_busy;
};

class Waker {
 public:
  virtual ~Waker() = default;
  // Called on the sending thread: makes thread `dest` leave its wait soon.
  virtual void Wake(uint32_t dest) = 0;
};

// Many producers, one consumer: the owning thread.
class Inbox {
 public:
  // Any thread. Appends the batch (leaving it empty) and returns true when the owner had
  // announced it was going to sleep, i.e. the caller must wake it.
  bool PushBatch(std::vector<Message>* batch);
  // Owner thread: takes everything queued so far.
  void Drain(std::vector<Message>* out);
  // Owner thread, before blocking: returns false when work is already waiting, in which
  // case the owner must not block. A producer that pushes after this returned true sees
  // the announcement and wakes the owner (both sides use sequentially consistent order).
  bool PrepareToSleep();
  // Owner thread, after waking up.
  void Awake() { sleeping_.store(false, std::memory_order_relaxed); }
  bool HasWork() const { return has_work_.load(std::memory_order_acquire); }

 private:
  // std::mutex rather than absl::Mutex: Debian's Abseil is built without TSan
  // annotations, so ThreadSanitizer could not see absl::Mutex's ordering.
  std::mutex mu_;
  std::vector<Message> tasks_;  // guarded by mu_
  std::atomic<bool> has_work_{false};
  std::atomic<bool> sleeping_{false};
};

// Owned and used by one thread: the tasks it produced this turn, per destination, in two
// lanes. Flush hands every destination its `ahead` batch before any destination gets its
// other one: a task of the other lane (a reply) may reach a client, and what that client
// does next on another thread must not overtake what this turn sent ahead (keyspace
// events, which Redis publishes before it replies).
class Outbox {
 public:
  explicit Outbox(size_t threads) : ahead_(threads), main_(threads) {}
  void Add(uint32_t dest, Task task, bool while_busy = false) {
    main_.Add(dest, Message(std::move(task), while_busy));
  }
  void AddAhead(uint32_t dest, Task task) { ahead_.Add(dest, Message(std::move(task))); }
  bool empty() const { return ahead_.dirty.empty() && main_.dirty.empty(); }
  // Hands every batch to its destination inbox, the ahead lane first; wakes destinations
  // that sleep.
  template <typename InboxOf>
  void Flush(InboxOf&& inbox_of, Waker& waker) {
    for (Lane* lane : {&ahead_, &main_}) {
      for (uint32_t dest : lane->dirty) {
        if (inbox_of(dest).PushBatch(&lane->batches[dest])) waker.Wake(dest);
      }
      lane->dirty.clear();
    }
  }

 private:
  struct Lane {
    explicit Lane(size_t threads) : batches(threads) {}
    void Add(uint32_t dest, Message message) {
      if (batches[dest].empty()) dirty.push_back(dest);
      batches[dest].push_back(std::move(message));
    }
    std::vector<std::vector<Message>> batches;
    std::vector<uint32_t> dirty;
  };
  Lane ahead_;
  Lane main_;
};

}  // namespace rc
