#include "core/entry_table.h"

#include <cstdio>
#include <cstdlib>

namespace rc {

Entry* EntryTable::Insert(EntryPtr e) {
  Entry* raw = e.release();
  entry_bytes_ += raw->AllocatedBytes();
  table_.Insert(raw, HashKey(raw->key()));
  if (slot_counts_ != nullptr) slot_counts_->Add(raw->key());
  return raw;
}

EntryPtr EntryTable::Detach(std::string_view key) {
  Entry* e = table_.Detach(HashKey(key), KeyEq{key});
  if (e == nullptr) return nullptr;
  entry_bytes_ -= e->AllocatedBytes();
  if (slot_counts_ != nullptr) slot_counts_->Remove(key);
  return EntryPtr(e);
}

EntryPtr EntryTable::Replace(Entry* old_entry, EntryPtr repl) {
  Entry* raw = repl.release();
  table_.Replace(old_entry, raw, HashKey(raw->key()));
  entry_bytes_ += raw->AllocatedBytes();
  entry_bytes_ -= old_entry->AllocatedBytes();
  return EntryPtr(old_entry);
}

void EntryTable::Clear() {
  table_.Clear([](Entry* e) { EntryDeleter()(e); });
  entry_bytes_ = 0;
  if (slot_counts_ != nullptr) slot_counts_->Clear();
}

void EntryTable::CountSlots() {
  if (slot_counts_ != nullptr) return;
  slot_counts_ = std::make_unique<SlotCounts>();
  table_.ForEach([this](const Entry* e) { slot_counts_->Add(e->key()); });
}

void EntryTable::Verify() const {
  table_.Verify();
  if (slot_counts_ == nullptr) return;
  SlotCounts expected;
  table_.ForEach([&](const Entry* e) { expected.Add(e->key()); });
  for (uint32_t slot = 0; slot < kNumKeySlots; ++slot) {
    if (expected[uint16_t(slot)] != (*slot_counts_)[uint16_t(slot)]) {
      std::fprintf(stderr, "EntryTable: slot %u holds %u keys, its count says %u\n", slot,
                   expected[uint16_t(slot)], (*slot_counts_)[uint16_t(slot)]);
      std::abort();
    }
  }
}

}  // namespace rc
