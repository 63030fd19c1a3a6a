#pragma once
// A growable array of trivially copyable items in its own anonymous mapping, for
// structures that live on a reactor thread and may hold tens of millions of items (the
// TTL heap). A std::vector of 10M pointers stalls its thread for tens of milliseconds
// when it doubles (it copies 80 MB); here growth is mremap, which moves page-table
// entries, not the items. Capacity beyond the items' pages is address space only: pages
// are resident once touched, and shrinking hands the tail back to the kernel. Indexing is
// a plain contiguous array (an array of fixed pages was measured 1.5-2x slower to sift).

#include <sys/mman.h>

#include <cassert>
#include <cstddef>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <type_traits>

namespace rc {

template <typename T>
class MappedArray {
  static_assert(std::is_trivially_copyable_v<T>, "items move by page remapping");

 public:
  MappedArray() = default;
  MappedArray(const MappedArray&) = delete;
  MappedArray& operator=(const MappedArray&) = delete;
  ~MappedArray() { clear(); }

  size_t size() const { return size_; }
  bool empty() const { return size_ == 0; }
  size_t capacity() const { return capacity_; }

  T& operator[](size_t i) {
    assert(i < size_);
    return data_[i];
  }
  const T& operator[](size_t i) const {
    assert(i < size_);
    return data_[i];
  }
  T& front() { return (*this)[0]; }
  const T& front() const { return (*this)[0]; }
  T& back() { return (*this)[size_ - 1]; }

  void push_back(const T& item) {
    if (size_ == capacity_) Resize(capacity_ == 0 ? kMinBytes / sizeof(T) : capacity_ * 2);
    data_[size_++] = item;
  }
  void pop_back() {
    assert(size_ > 0);
    --size_;
    // Halve at a quarter full, so a size wobbling at a boundary does not remap each time.
    if (capacity_ * sizeof(T) > kMinBytes && size_ < capacity_ / 4) Resize(capacity_ / 2);
  }
  void clear() {
    if (data_ != nullptr) ::munmap(data_, capacity_ * sizeof(T));
    data_ = nullptr;
    size_ = capacity_ = 0;
  }
  // Resident bytes at most: the mapping's pages that items have reached.
  size_t MemoryBytes() const { return capacity_ == 0 ? 0 : RoundUp(size_ * sizeof(T)); }

 private:
  static constexpr size_t kMinBytes = 4096;
#if defined(__SANITIZE_THREAD__)
  // ThreadSanitizer does not intercept mremap: it would keep the old range's shadow and
  // report a race when another thread's mapping lands there later.
  static constexpr bool kCopyInsteadOfRemap = true;
#else
  static constexpr bool kCopyInsteadOfRemap = false;
#endif
  static size_t RoundUp(size_t bytes) {
    return bytes == 0 ? kMinBytes : (bytes + kMinBytes - 1) / kMinBytes * kMinBytes;
  }

  void Resize(size_t items) {
    const size_t bytes = RoundUp(items * sizeof(T));
    void* p;
    if (data_ == nullptr || kCopyInsteadOfRemap) {
      p = ::mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
      if (p != MAP_FAILED && data_ != nullptr) {
        std::memcpy(p, data_, size_ * sizeof(T));
        ::munmap(data_, capacity_ * sizeof(T));
      }
    } else {
      p = ::mremap(data_, capacity_ * sizeof(T), bytes, MREMAP_MAYMOVE);
    }
    if (p == MAP_FAILED) {
      std::fprintf(stderr, "MappedArray: cannot map %zu bytes\n", bytes);
      std::abort();
    }
    data_ = static_cast<T*>(p);
    capacity_ = bytes / sizeof(T);
  }

  T* data_ = nullptr;
  size_t size_ = 0;
  size_t capacity_ = 0;  // items the mapping holds
};

}  // namespace rc
