#include "core/entry_table.h"

namespace rc {

Entry* EntryTable::Insert(EntryPtr e) {
  Entry* raw = e.release();
  entry_bytes_ += raw->AllocatedBytes();
  table_.Insert(raw, HashKey(raw->key()));
  return raw;
}

EntryPtr EntryTable::Detach(std::string_view key) {
  Entry* e = table_.Detach(HashKey(key), KeyEq{key});
  if (e != nullptr) entry_bytes_ -= e->AllocatedBytes();
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
}

}  // namespace rc
