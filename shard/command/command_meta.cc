#include "shard/command/command_meta.h"

#include <cstdlib>

#include "absl/container/flat_hash_map.h"
#include "core/numbers.h"

namespace rc {

const CommandMeta* FindCommandMeta(std::string_view full_name) {
  static const auto* const index = [] {
    auto* m = new absl::flat_hash_map<std::string_view, const CommandMeta*>();
    for (size_t i = 0; i < kCommandMetaCount; ++i) {
      m->emplace(kCommandMeta[i].name, &kCommandMeta[i]);
    }
    return m;
  }();
  auto it = index->find(full_name);
  return it == index->end() ? nullptr : it->second;
}

size_t WriteResp3(std::string_view resp3, ReplyBuilder& rb, size_t extra_pairs) {
  const size_t eol = resp3.find("\r\n");
  int64_t n = 0;
  // The table is generated: a malformed entry is a build defect, not a client's input.
  if (resp3.empty() || eol == std::string_view::npos) std::abort();
  const std::string_view head = resp3.substr(1, eol - 1);
  size_t pos = eol + 2;
  const char kind = resp3[0];
  if (kind == '+') {
    rb.SimpleString(head);
    return pos;
  }
  if (!ParseInt64(head, &n)) std::abort();
  if (kind == ':') {
    rb.Integer(n);  // may be negative (a key spec's lastkey -1)
    return pos;
  }
  if (n < 0) std::abort();
  switch (kind) {
    case '$':
      rb.Bulk(resp3.substr(pos, size_t(n)));
      return pos + size_t(n) + 2;
    case '%':
      rb.MapLen(size_t(n) + extra_pairs);
      n *= 2;
      break;
    case '*':
      rb.ArrayLen(size_t(n));
      break;
    case '~':
      rb.SetLen(size_t(n));
      break;
    default:
      std::abort();
  }
  for (int64_t i = 0; i < n; ++i) pos += WriteResp3(resp3.substr(pos), rb);
  return pos;
}

}  // namespace rc
