#pragma once
// The value layer: what the server needs to know about a key's value, whatever its type,
// in one place. A string lives inline in its entry (core/entry.h); a value of any other
// type is an object the entry owns through a pointer. Per type, value.cc has one row:
//
//   name         TYPE, SCAN ... TYPE
//   encoding     OBJECT ENCODING, in Redis's words
//   bytes        what the allocator holds for it: MEMORY USAGE, used_memory
//   free effort  blocks to free: above lazyfree-threshold it is freed off the shard thread
//   size         elements; a change that leaves none deletes the key, as in Redis
//   clone        an independent deep copy, same encoding (COPY)
//   destroy
//
// Moving a value (RENAME, a key crossing shards) moves the pointer, never the object;
// COPY clones it (Value::Clone, Entry::Copy).
//
// Adding a type: its class in core/ (satisfying ValueObject, `Clone()` included), a
// ValueType, a ValueTraits specialization below, and its row in value.cc.

#include <cassert>
#include <concepts>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string_view>
#include <utility>

namespace rc {

class Entry;
class ZSet;
class Hash;
class MemberSet;
class List;

// Three bits of the entry's meta byte: at most eight types.
enum class ValueType : uint8_t { kString = 0, kZSet = 1, kHash = 2, kSet = 3, kList = 4 };

template <typename T>
struct ValueTraits;
template <>
struct ValueTraits<ZSet> {
  static constexpr ValueType kType = ValueType::kZSet;
};
template <>
struct ValueTraits<Hash> {
  static constexpr ValueType kType = ValueType::kHash;
};
template <>
struct ValueTraits<MemberSet> {
  static constexpr ValueType kType = ValueType::kSet;
};
template <>
struct ValueTraits<List> {
  static constexpr ValueType kType = ValueType::kList;
};

// What a type's class offers the value layer; all of it is called on the owning shard's
// thread, except the destructor, which may run on the lazyfree pool.
template <typename T>
concept ValueObject = requires(const T& v) {
  { ValueTraits<T>::kType } -> std::convertible_to<ValueType>;
  { v.size() } -> std::convertible_to<size_t>;
  { v.MemoryBytes() } -> std::convertible_to<size_t>;
  { v.Encoding() } -> std::convertible_to<std::string_view>;
  { v.FreeEffort() } -> std::convertible_to<size_t>;
  // A deep copy that shares nothing with `v` and keeps its encoding, as Redis's COPY
  // (dupStringObject, zsetDup, ...) does; called on the owner's thread, the copy may then
  // travel to another shard's.
  { v.Clone() } -> std::same_as<std::unique_ptr<T>>;
};

// What TYPE replies and SCAN's TYPE option matches.
std::string_view TypeName(ValueType t);

// An owned object value of any type but string: what an entry holds, what Shard::Store
// and Shard::Add take, and what goes to the lazyfree pool.
class Value {
 public:
  Value() = default;
  template <ValueObject T>
  explicit Value(std::unique_ptr<T> obj) : type_(ValueTraits<T>::kType), obj_(obj.release()) {}
  template <ValueObject T, typename... Args>
  static Value Make(Args&&... args) {
    return Value(std::make_unique<T>(std::forward<Args>(args)...));
  }
  Value(Value&& o) noexcept : type_(o.type_), obj_(std::exchange(o.obj_, nullptr)) {}
  Value& operator=(Value&& o) noexcept {
    if (this != &o) {
      Reset();
      type_ = o.type_;
      obj_ = std::exchange(o.obj_, nullptr);
    }
    return *this;
  }
  ~Value() { Reset(); }

  explicit operator bool() const { return obj_ != nullptr; }
  ValueType type() const { return type_; }
  template <ValueObject T>
  T* get() const {
    assert(type_ == ValueTraits<T>::kType);
    return static_cast<T*>(obj_);
  }

  size_t MemoryBytes() const;
  size_t FreeEffort() const;
  // A deep copy of the object (COPY); an empty Value for an empty one.
  Value Clone() const { return CloneObject(type_, obj_); }
  // A deep copy of an object of type `type` that something else owns (an entry's).
  static Value CloneObject(ValueType type, const void* obj);
  bool empty() const;
  void Reset();

  // The entry's side of ownership: it stores the bare pointer in its value bytes.
  void* Release() { return std::exchange(obj_, nullptr); }
  static Value Adopt(ValueType type, void* obj) { return Value(type, obj); }

 private:
  Value(ValueType type, void* obj) : type_(type), obj_(obj) {}

  ValueType type_ = ValueType::kString;
  void* obj_ = nullptr;
};

// OBJECT ENCODING of an entry's value: a string's by its bytes as Redis would store them
// (int, embstr, raw), an object's from its type.
std::string_view EncodingOf(const Entry& e);
// Bytes the value holds outside its entry's allocation (0 for strings).
size_t ValueBytes(const Entry& e);
// Whether an object value has no elements left (never true of a string).
bool ValueEmpty(const Entry& e);

}  // namespace rc
