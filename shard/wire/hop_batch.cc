#include "shard/wire/hop_batch.h"

namespace rc {

namespace {

// Batches kept for reuse per thread, and the size past which one is dropped rather than
// kept (a burst of large values should not pin its memory).
constexpr size_t kMaxSpare = 16;
constexpr size_t kMaxKeptBytes = 1 << 20;

}  // namespace

void HopBatch::Add(const HopRequest& request, ArgList args) {
  HopRequest& r = requests_.emplace_back(request);
  r.first_len = uint32_t(arg_lens_.size());
  r.argc = uint32_t(args.size());
  r.first_byte = arg_bytes_.size();
  for (std::string_view a : args) {
    arg_lens_.push_back(uint32_t(a.size()));
    arg_bytes_.append(a);
  }
}

ArgList HopBatch::Args(const HopRequest& r, std::vector<std::string_view>* scratch) const {
  scratch->clear();
  const char* p = arg_bytes_.data() + r.first_byte;
  for (uint32_t i = 0; i < r.argc; ++i) {
    const uint32_t len = arg_lens_[r.first_len + i];
    scratch->emplace_back(p, len);
    p += len;
  }
  return ArgList(scratch->data(), scratch->size());
}

void HopBatch::Clear() {
  requests_.clear();
  arg_lens_.clear();
  arg_bytes_.clear();
  replies_.clear();
}

size_t HopBatch::Capacity() const {
  return requests_.capacity() * sizeof(HopRequest) + arg_lens_.capacity() * sizeof(uint32_t) +
         arg_bytes_.capacity() + replies_.capacity();
}

void HopLanes::SealAll() {
  for (HopBatch*& b : open_) b = nullptr;
}

std::unique_ptr<HopBatch> HopLanes::Take() {
  if (spare_.empty()) return std::make_unique<HopBatch>();
  std::unique_ptr<HopBatch> b = std::move(spare_.back());
  spare_.pop_back();
  return b;
}

void HopLanes::Recycle(std::unique_ptr<HopBatch> batch) {
  if (spare_.size() >= kMaxSpare || batch->Capacity() > kMaxKeptBytes) return;
  batch->Clear();
  spare_.push_back(std::move(batch));
}

}  // namespace rc
