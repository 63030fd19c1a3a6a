#pragma once
// A command's arguments copied into one allocation, so the command can run on another
// thread after the connection's read buffer has been reused.

#include <cstring>
#include <memory>
#include <string_view>
#include <vector>

#include "shard/wire/command.h"

namespace rc {

class OwnedArgs {
 public:
  explicit OwnedArgs(ArgList args) {
    size_t total = 0;
    for (auto a : args) total += a.size();
    buf_ = std::make_unique<char[]>(total == 0 ? 1 : total);
    views_.reserve(args.size());
    char* p = buf_.get();
    for (auto a : args) {
      if (!a.empty()) std::memcpy(p, a.data(), a.size());
      views_.emplace_back(p, a.size());
      p += a.size();
    }
  }
  ArgList view() const { return ArgList(views_.data(), views_.size()); }

 private:
  std::unique_ptr<char[]> buf_;
  std::vector<std::string_view> views_;
};

}  // namespace rc
