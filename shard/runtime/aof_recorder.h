#pragma once
// A shard's side of the append-only log (docs/PERSISTENCE.md, "The append-only log"):
// the records of what changed on this shard, in the order it changed, until the thread
// hands them to the journal (aof_journal.h) at the end of its loop turn or when a
// multi-shard command locks keys here.
//
// Records are Redis's AOF commands (RESP arrays). While EXEC, a script or a unit of a
// multi-shard command runs here, records go to that unit's buffer instead (Redirect), so
// the unit lands in the log whole and in its own place.
//
// Owner thread only; `on` is the journal's flag, which any thread may flip.

#include <atomic>
#include <initializer_list>
#include <string>
#include <string_view>
#include <utility>

#include "absl/types/span.h"
#include "core/aof_reader.h"

namespace rc {

class AofRecorder {
 public:
  void Attach(const std::atomic<bool>* on) { on_ = on; }
  // Whether the log is on: records are wanted.
  bool on() const { return on_ != nullptr && on_->load(std::memory_order_relaxed); }

  void Command(absl::Span<const std::string_view> argv) { AofAppendCommand(argv, target_); }
  void Command(std::initializer_list<std::string_view> argv) {
    AofAppendCommand(absl::MakeConstSpan(argv.begin(), argv.size()), target_);
  }
  void Raw(std::string_view records) { target_->append(records); }
  std::string* target() { return target_; }

  // Until Restore(returned), records go to `to`.
  std::string* Redirect(std::string* to) { return std::exchange(target_, to); }
  void Restore(std::string* previous) { target_ = previous; }
  // Whether a unit's buffer takes the records now (a script inside EXEC is part of it).
  bool redirected() const { return target_ != &local_; }

  // The records not yet handed to the journal (not those of a redirect in progress).
  bool HasLocal() const { return !local_.empty(); }
  std::string TakeLocal() { return std::exchange(local_, std::string()); }

 private:
  const std::atomic<bool>* on_ = nullptr;
  std::string local_;
  std::string* target_ = &local_;
};

// Appends to `out` what a unit (EXEC, a script) wrote, inside MULTI ... EXEC: a reader of
// a log cut short replays all of it or none.
inline void AppendUnit(std::string_view records, std::string* out) {
  if (records.empty()) return;
  static constexpr std::string_view kMulti = "*1\r\n$5\r\nMULTI\r\n";
  static constexpr std::string_view kExec = "*1\r\n$4\r\nEXEC\r\n";
  out->append(kMulti);
  out->append(records);
  out->append(kExec);
}

}  // namespace rc
