#include "core/entry.h"

#include <malloc.h>

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <new>

namespace rc {

void EntryDeleter::operator()(Entry* e) const {
  if (e->type() != ValueType::kString) e->TakeValue().Reset();
  e->~Entry();
  std::free(e);
}

EntryPtr Entry::MakeString(std::string_view key, std::string_view value, size_t capacity,
                           bool with_ttl) {
  if (capacity < value.size()) capacity = value.size();
  bool wide = key.size() > 0xff || capacity > 0xff;
  size_t header = (wide ? kWideHeader : kNarrowHeader) + (with_ttl ? kTtlFields : 0);
  // A short entry (11-byte header, 1-byte key, empty value) is smaller than sizeof(Entry),
  // whose padding rounds it to 16: ask for at least that much (glibc's smallest chunk holds
  // 24 bytes anyway), and default-initialize, since value-initialization may zero all of
  // sizeof(Entry) (clang emits a 16-byte memset) and overrun the allocation.
  void* mem = std::malloc(std::max(sizeof(Entry), header + key.size() + capacity));
  if (mem == nullptr) throw std::bad_alloc();
  Entry* e = new (mem) Entry;
  e->link_ = 0;
  e->meta_ = uint8_t(ValueType::kString) | (wide ? kWide : 0) | (with_ttl ? kTtl : 0);
  e->SetLens(key.size(), value.size());
  if (with_ttl) {
    e->set_deadline(0);
    e->set_heap_index(0);
  }
  std::memcpy(e->Data(), key.data(), key.size());
  if (!value.empty()) std::memcpy(e->Data() + key.size(), value.data(), value.size());
  return EntryPtr(e);
}

EntryPtr Entry::MakeValue(std::string_view key, Value v, bool with_ttl) {
  const ValueType type = v.type();
  void* raw = v.Release();
  EntryPtr e = MakeString(key, std::string_view(reinterpret_cast<const char*>(&raw), sizeof raw), 0,
                          with_ttl);
  e->meta_ = uint8_t((e->meta_ & ~kTypeMask) | uint8_t(type));
  return e;
}

void* Entry::object() const {
  void* obj;
  std::memcpy(&obj, Data() + KeyLen(), sizeof obj);
  return obj;
}

Value Entry::TakeValue() {
  Value v = Value::Adopt(type(), object());
  void* none = nullptr;
  std::memcpy(Data() + KeyLen(), &none, sizeof none);
  return v;
}

EntryPtr Entry::Remake(Entry& e, std::string_view key, bool with_ttl, size_t capacity) {
  EntryPtr out = e.type() != ValueType::kString ? MakeValue(key, e.TakeValue(), with_ttl)
                                                : MakeString(key, e.str(), capacity, with_ttl);
  if (with_ttl && e.has_ttl()) {
    out->set_deadline(e.deadline());
    out->set_heap_index(e.heap_index());
  }
  return out;
}

EntryPtr Entry::Copy(const Entry& e, std::string_view key) {
  EntryPtr out;
  if (e.type() == ValueType::kString) {
    out = MakeString(key, e.str(), 0, e.has_ttl());
  } else {
    out = MakeValue(key, Value::CloneObject(e.type(), e.object()), e.has_ttl());
  }
  if (e.has_ttl()) out->set_deadline(e.deadline());
  return out;
}

int64_t Entry::deadline() const {
  int64_t v;
  std::memcpy(&v, Base() + LengthsEnd(), 8);
  return v;
}

void Entry::set_deadline(int64_t unix_ms) { std::memcpy(Base() + LengthsEnd(), &unix_ms, 8); }

uint32_t Entry::heap_index() const {
  uint32_t v;
  std::memcpy(&v, Base() + LengthsEnd() + 8, 4);
  return v;
}

void Entry::set_heap_index(uint32_t i) { std::memcpy(Base() + LengthsEnd() + 8, &i, 4); }

size_t Entry::KeyLen() const {
  const char* p = Base() + kMetaOffset + 1;
  if (!Wide()) return uint8_t(p[0]);
  uint32_t v;
  std::memcpy(&v, p, 4);
  return v;
}

size_t Entry::ValueLen() const {
  const char* p = Base() + kMetaOffset + 1;
  if (!Wide()) return uint8_t(p[1]);
  uint32_t v;
  std::memcpy(&v, p + 4, 4);
  return v;
}

void Entry::SetLens(size_t klen, size_t vlen) {
  char* p = Base() + kMetaOffset + 1;
  if (!Wide()) {
    p[0] = char(klen);
    p[1] = char(vlen);
    return;
  }
  uint32_t k = uint32_t(klen), v = uint32_t(vlen);
  std::memcpy(p, &k, 4);
  std::memcpy(p + 4, &v, 4);
}

size_t Entry::StrCapacity() const {
  size_t cap = malloc_usable_size(const_cast<Entry*>(this)) - HeaderSize() - KeyLen();
  // A narrow entry's length byte caps the value at 255 however much slack malloc gave.
  return Wide() ? cap : std::min<size_t>(cap, 0xff);
}

void Entry::SetStrLen(size_t len) { SetLens(KeyLen(), len); }

size_t Entry::AllocatedBytes() const { return malloc_usable_size(const_cast<Entry*>(this)); }

}  // namespace rc
