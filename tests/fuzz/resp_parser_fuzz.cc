// libFuzzer target for net::RespParser (tests/fuzz/run.sh builds and runs it).
//
// Input: one control byte, then the byte stream a client sends. The control byte picks
// the limits (Redis's, or tiny ones so that every limit is reachable, and the
// unauthenticated ones) and seeds the split of the stream into reads. The stream is
// parsed twice, whole and in those reads, as a connection does (append, parse until
// kNeedMore, drop consumed bytes, move the buffer); both runs must agree on every
// command and on the final status and error text, and each obeys the parser's contract:
//   - kOk consumes > 0 bytes and no more than it was given; its args lie inside the
//     buffer (multibulk) or are copies (inline); kError is sticky and has a text;
//   - a request waiting for a bulk asks, via BytesNeeded(), for more than it has;
//   - work stays linear in the bytes given (no rescanning on resume).

#include <algorithm>
#include <cstddef>
#include <cstdio>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <string_view>
#include <vector>

#include "net/resp_parser.h"
#include "tests/fuzz/fuzz_check.h"

namespace {

using rc::net::ParserLimits;
using rc::net::RespParser;
using Status = RespParser::Status;

struct Outcome {
  std::vector<std::vector<std::string>> commands;
  Status last = Status::kNeedMore;
  std::string error;
};

// Splits come from a small xorshift generator so a crash reproduces from the input alone.
struct Splitter {
  uint64_t state;
  size_t max_chunk;
  size_t Next() {
    state ^= state << 13;
    state ^= state >> 7;
    state ^= state << 17;
    return 1 + state % max_chunk;
  }
};

Outcome Feed(std::string_view stream, const ParserLimits& limits, Splitter* split) {
  RespParser parser(limits);
  Outcome out;
  std::string buf;
  size_t head = 0, fed = 0;
  uint64_t calls = 0;
  std::vector<std::string_view> args;
  while (true) {
    while (true) {
      size_t consumed = 12345;
      ++calls;
      const std::string_view view = std::string_view(buf).substr(head);
      out.last = parser.Parse(view, &consumed, &args);
      if (out.last != Status::kOk) {
        FUZZ_CHECK(consumed == 0);
        FUZZ_CHECK(args.empty());
        if (out.last == Status::kNeedMore && parser.BytesNeeded() > 0) {
          FUZZ_CHECK(parser.BytesNeeded() > view.size());
        }
        break;
      }
      FUZZ_CHECK(consumed > 0 && consumed <= view.size());
      for (std::string_view a : args) {
        const bool in_buf = a.data() >= view.data() && a.data() + a.size() <= view.data() + consumed;
        // Inline arguments are decoded copies; a multibulk argument lies inside the request.
        FUZZ_CHECK(in_buf || view[0] != '*');
      }
      out.commands.emplace_back(args.begin(), args.end());
      head += consumed;
    }
    if (out.last == Status::kError) {
      FUZZ_CHECK(!parser.error().empty());
      size_t consumed;
      FUZZ_CHECK(parser.Parse("PING\r\n", &consumed, &args) == Status::kError);  // sticky
      break;
    }
    if (fed == stream.size()) break;
    if (head > buf.size() / 2) {  // compact, as a connection does: views must not survive
      buf.erase(0, head);
      head = 0;
    }
    const size_t n = split ? std::min(split->Next(), stream.size() - fed) : stream.size();
    std::string grown;
    grown.reserve(buf.size() + n);
    grown.append(buf).append(stream.substr(fed, n));
    buf.swap(grown);  // always a new allocation
    fed += n;
  }
  out.error = parser.error();
  // Linear work: each byte is looked at a bounded number of times however it was split.
  FUZZ_CHECK(parser.work() <= 2 * stream.size() + 4 * calls + 64);
  return out;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size < 1) return 0;
  const uint8_t control = data[0];
  const std::string_view stream(reinterpret_cast<const char*>(data + 1), size - 1);
  ParserLimits limits;
  if (control & 1) {
    limits.max_bulk_len = 16;
    limits.max_inline_len = 32;
    limits.max_multibulk_len = 4;
  }
  limits.unauthenticated = (control & 2) != 0;
  Splitter split{uint64_t(control) * 0x9e3779b97f4a7c15ULL + size, size_t{1} << (control >> 5)};
  const Outcome whole = Feed(stream, limits, nullptr);
  const Outcome parts = Feed(stream, limits, &split);
  FUZZ_CHECK(whole.commands == parts.commands);
  FUZZ_CHECK(whole.last == parts.last);
  FUZZ_CHECK(whole.error == parts.error);
  return 0;
}
