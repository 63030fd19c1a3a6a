#include "core/value.h"

#include <array>

#include "core/entry.h"
#include "core/hash.h"
#include "core/list.h"
#include "core/member_set.h"
#include "core/numbers.h"
#include "core/zset.h"

namespace rc {

namespace {

// One type's row. Strings have no object: their row has only a name.
struct Kind {
  std::string_view name;
  std::string_view (*encoding)(const void*) = nullptr;
  size_t (*bytes)(const void*) = nullptr;
  size_t (*free_effort)(const void*) = nullptr;
  size_t (*size)(const void*) = nullptr;
  void* (*clone)(const void*) = nullptr;
  void (*destroy)(void*) = nullptr;
};

template <ValueObject T>
constexpr Kind KindOf(std::string_view name) {
  return Kind{
      name,
      [](const void* p) -> std::string_view { return static_cast<const T*>(p)->Encoding(); },
      [](const void* p) -> size_t { return static_cast<const T*>(p)->MemoryBytes(); },
      [](const void* p) -> size_t { return static_cast<const T*>(p)->FreeEffort(); },
      [](const void* p) -> size_t { return static_cast<const T*>(p)->size(); },
      [](const void* p) -> void* { return static_cast<const T*>(p)->Clone().release(); },
      [](void* p) { delete static_cast<T*>(p); },
  };
}

// Indexed by ValueType.
constexpr std::array kKinds = {
    Kind{"string"},
    KindOf<ZSet>("zset"),
    KindOf<Hash>("hash"),
    KindOf<MemberSet>("set"),
    KindOf<List>("list"),
};

const Kind& KindFor(ValueType t) { return kKinds[size_t(t)]; }

}  // namespace

std::string_view TypeName(ValueType t) {
  return size_t(t) < kKinds.size() ? KindFor(t).name : "none";
}

size_t Value::MemoryBytes() const { return obj_ ? KindFor(type_).bytes(obj_) : 0; }

size_t Value::FreeEffort() const { return obj_ ? KindFor(type_).free_effort(obj_) : 0; }

bool Value::empty() const { return obj_ == nullptr || KindFor(type_).size(obj_) == 0; }

Value Value::CloneObject(ValueType type, const void* obj) {
  return obj != nullptr ? Value(type, KindFor(type).clone(obj)) : Value();
}

void Value::Reset() {
  if (obj_ != nullptr) KindFor(type_).destroy(std::exchange(obj_, nullptr));
}

std::string_view EncodingOf(const Entry& e) {
  if (e.type() != ValueType::kString) return KindFor(e.type()).encoding(e.object());
  // Redis 7.0 stores a string that reads as a long as an integer, else embstr up to 44
  // bytes, else raw. APPEND/SETRANGE make a Redis string raw; ringcache judges a string by
  // its bytes now.
  int64_t v;
  if (ParseInt64(e.str(), &v)) return "int";
  return e.str().size() <= 44 ? "embstr" : "raw";
}

size_t ValueBytes(const Entry& e) {
  if (e.type() == ValueType::kString || e.object() == nullptr) return 0;
  return KindFor(e.type()).bytes(e.object());
}

bool ValueEmpty(const Entry& e) {
  return e.type() != ValueType::kString && KindFor(e.type()).size(e.object()) == 0;
}

}  // namespace rc
