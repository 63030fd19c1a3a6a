#pragma once
// A list of binary strings, Redis's list type. Elements are packed, never one heap node
// each (Redis 7.0: a quicklist of listpacks):
//
//   - small: while the list fits one block (list-max-listpack-size, as Redis decides
//     whether a listpack node takes another element), the object holds that one block:
//     24 bytes of object (a 32-byte chunk) and the block, sized to its bytes.
//   - big: a ring of blocks, each one malloc'd run of packed elements, its byte and element
//     counts kept in the ring slot (16 bytes a block): O(1) push and pop at both ends,
//     an index walks the blocks' counts from the nearer end, as a quicklist walks nodes.
//
// An element is packed tighter than a listpack entry: one header byte that is the whole
// element for 0..127, or holds a string's length (up to 63) or an integer's high bits;
// no back-length byte (a block is walked forwards; a backward step within a block
// decodes the block's offsets, at most list-max-listpack-size bytes of them, except in a
// big list's last block, whose offsets it keeps while only its tail changes, so RPOP and
// LINDEX -1 stay O(1)). Strings
// that are canonical integers (Redis's string2ll spelling) are stored as integers and
// come back as the same bytes.
//
//   0xxxxxxx               0..127
//   10llllll  bytes        string of 0..63 bytes
//   110xxxxx  1 byte       13-bit signed integer      (x: high bits, big-endian)
//   1110xxxx  2 bytes      20-bit signed integer
//   11110xxx  3 bytes      27-bit signed integer
//   11111000  4 bytes      32-bit signed integer      (little-endian)
//   11111001  8 bytes      64-bit signed integer
//   11111010  varint bytes string of any length
//
// OBJECT ENCODING says "quicklist" for both, as Redis 7.0 does for every list.
// Views and element positions are valid until the next change. Single-threaded: the
// owning shard's thread calls every method; the destructor may run on the lazyfree pool.

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "absl/functional/function_ref.h"

namespace rc {

class List {
 public:
  enum class End : uint8_t { kHead, kTail };
  // Gets each element; returns false to stop the walk.
  using Visit = absl::FunctionRef<bool(std::string_view elem)>;
  // list-max-listpack-size: a negative value caps a block's bytes (-1: 4 KiB ... -5:
  // 64 KiB), a positive one its elements (and 8 KiB), as Redis caps a quicklist node.
  struct Limits {
    int64_t fill = -2;
  };

  List() = default;
  ~List();
  List(const List&) = delete;
  List& operator=(const List&) = delete;

  size_t size() const;
  bool big() const { return big_ != nullptr; }
  // Blocks the elements are in (1 for a small list).
  size_t blocks() const;

  // LPUSH (kHead) / RPUSH (kTail).
  void Push(std::string_view v, End end, const Limits& limits);
  // Visits up to `n` elements from `end`, nearest first, then removes them. Returns how
  // many it removed. The views live until `fn` returns.
  size_t Pop(End end, size_t n, absl::FunctionRef<void(std::string_view)> fn);
  // The element at `i` (< size()); `buf` holds an integer's digits (kBufBytes).
  static constexpr size_t kBufBytes = 24;
  std::string_view At(size_t i, char* buf) const;
  // LSET: replaces the element at `i` (< size()).
  void Set(size_t i, std::string_view v, const Limits& limits);
  // Visits elements from index `start` (< size()) towards the tail, or with `reverse`
  // towards the head, until `fn` returns false or the list ends.
  void Walk(size_t start, bool reverse, Visit fn) const;
  // LINSERT: puts `v` before (or `after`) the first element equal to `pivot` from the
  // head. Returns false when no element equals `pivot`.
  bool Insert(std::string_view pivot, std::string_view v, bool after, const Limits& limits);
  // LREM: removes elements equal to `v`: the first `count` from the head (count > 0), the
  // last -count (count < 0), or all (0). Returns how many.
  size_t Remove(std::string_view v, int64_t count);
  // Removes the `n` elements from index `start` (start + n <= size()).
  void Erase(size_t start, size_t n);

  // An equal list in the same blocks (COPY).
  std::unique_ptr<List> Clone() const;

  // Bytes the allocator holds for this list, the object included.
  size_t MemoryBytes() const;
  std::string_view Encoding() const { return "quicklist"; }
  // Blocks freed when the list is destroyed (Redis's lazyfreeGetFreeEffort: the
  // quicklist's node count).
  size_t FreeEffort() const { return blocks(); }
  // Aborts with a message unless every count and length agrees.
  void Verify() const;

 private:
  // A run of packed elements in one malloc'd block.
  struct Run {
    char* data = nullptr;
    uint32_t used = 0;   // bytes of elements
    uint32_t count = 0;  // elements
  };
  struct Big;
  struct Pos {
    size_t block;  // ring index (0 for small)
    size_t index;  // element within the block
  };

  Run& RunAt(size_t b);
  const Run& RunAt(size_t b) const;
  size_t* Accounting();
  // The block holding element `i` and `i`'s index in it.
  Pos Locate(size_t i) const;
  void ToBig();
  // Back to small when one block is left that a small list would hold.
  void MaybeSmall();
  // Splits block `b` in two when it is over the limits and has more than one element.
  void MaybeSplit(size_t b, const Limits& limits);
  void DropBlock(size_t b);
  // The last block's element offsets (a big list's tail cache), built when stale.
  const std::vector<uint32_t>& TailOffsets();
  // A change other than a push or pop at the tail: the tail cache is stale.
  void TailChanged();
  void AddCount(int64_t d);

  Run small_;
  Big* big_ = nullptr;
};
static_assert(sizeof(List) <= 24);

}  // namespace rc
