// libFuzzer target for the RDB value codec (core/rdb_value.h) and the blobs under it
// (listpack, ziplist, zipmap, intset); tests/fuzz/run.sh builds and runs it.
//
// Input: one byte, the RDB type, then a value's body as a file or DUMP payload holds it.
// Contract checked:
//   - reading never crashes or reads outside the input (ASan), whatever the bytes;
//   - a failed read names why; a successful one consumed no more than it was given, and
//     skipping the same bytes lands on the same place;
//   - a value read back is written again and reads back to the same contents (so what
//     was accepted is something ringcache can serve and write out again).
// The blob readers also get the body itself.

#include <cstdio>
#include <cstdlib>
#include <string>
#include <string_view>

#include "core/intset.h"
#include "core/listpack.h"
#include "core/rdb_value.h"
#include "core/ziplist.h"
#include "tests/core/rdb_test_util.h"
#include "tests/fuzz/fuzz_check.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size < 1) return 0;
  const uint8_t type = data[0];
  const std::string_view body(reinterpret_cast<const char*>(data + 1), size - 1);

  // Small limits, so that every conversion is reachable with small inputs.
  rc::RdbLimits limits;
  limits.hash = {.max_entries = 8, .max_value = 16};
  limits.set = {.max_intset_entries = 8};
  limits.list = {.fill = 4};
  rc::RdbReader in(body);
  rc::RdbObject obj;
  std::string error;
  const bool ok = rc::RdbReadObject(type, in, limits, &obj, &error);
  rc::RdbReader skip(body);
  const bool skipped = rc::RdbSkipObject(type, skip);
  if (!ok) {
    FUZZ_CHECK(!error.empty());
  } else {
    FUZZ_CHECK(rc::RdbIsObjectType(type));
    FUZZ_CHECK(skipped && skip.remaining() == in.remaining());
    rc::EntryPtr e = rc::ToEntry(std::move(obj));
    std::string again;
    rc::RdbAppendObject(*e, (size & 1) != 0, &again);
    rc::RdbReader in2(again);
    rc::RdbObject obj2;
    FUZZ_CHECK(rc::RdbReadObject(rc::RdbObjectType(*e), in2, limits, &obj2, &error));
    FUZZ_CHECK(in2.remaining() == 0);
    FUZZ_CHECK(rc::Describe(*rc::ToEntry(std::move(obj2))) == rc::Describe(*e));
  }

  auto any = [](const rc::listpack::Element&) { return true; };
  rc::listpack::ForEach(body, any);
  rc::ziplist::ForEach(body, any);
  rc::zipmap::ForEach(body, [](std::string_view, std::string_view) { return true; });
  rc::intset::ForEach(body, [](int64_t) { return true; });
  return 0;
}
