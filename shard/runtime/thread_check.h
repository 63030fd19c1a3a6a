#pragma once
// Debug-build guard that a shard's data is touched only by the thread that owns it.

#include <cassert>
#include <thread>

namespace rc {

class ThreadCheck {
 public:
  // The first thread to call Bind() owns the object from then on.
  void Bind() { owner_ = std::this_thread::get_id(); }
  bool IsOwner() const {
    return owner_ == std::thread::id() || owner_ == std::this_thread::get_id();
  }

 private:
  std::thread::id owner_;
};

#define RC_DCHECK_OWNER(check) assert((check).IsOwner())

}  // namespace rc
