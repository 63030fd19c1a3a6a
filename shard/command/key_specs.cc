#include "shard/command/key_specs.h"

#include <cstdlib>
#include <string>

#include "core/numbers.h"
#include "core/strings.h"

namespace rc {

namespace {

// A RESP3 value of the generated table: maps keep their pairs in order.
struct Node {
  char kind = 0;
  std::string_view text;  // bulk or simple string
  int64_t number = 0;     // integer
  std::vector<Node> items;

  const Node* Get(std::string_view key) const {
    for (size_t i = 0; i + 1 < items.size(); i += 2) {
      if (items[i].text == key) return &items[i + 1];
    }
    return nullptr;
  }
  int64_t Int(std::string_view key) const {
    const Node* n = Get(key);
    return n != nullptr ? n->number : 0;
  }
};

// Reads the value at `pos`; the table is generated, so malformed text is a build defect.
Node Read(std::string_view s, size_t& pos) {
  const size_t eol = s.find("\r\n", pos);
  if (eol == std::string_view::npos) std::abort();
  Node n;
  n.kind = s[pos];
  const std::string_view head = s.substr(pos + 1, eol - pos - 1);
  pos = eol + 2;
  if (n.kind == '+') {
    n.text = head;
    return n;
  }
  int64_t len = 0;
  if (!ParseInt64(head, &len)) std::abort();
  if (n.kind == ':') {
    n.number = len;
    return n;
  }
  if (n.kind == '$') {
    n.text = s.substr(pos, size_t(len));
    pos += size_t(len) + 2;
    return n;
  }
  if (n.kind == '%') len *= 2;
  for (int64_t i = 0; i < len; ++i) n.items.push_back(Read(s, pos));
  return n;
}

}  // namespace

std::vector<KeySpecView> ParseKeySpecs(std::string_view resp3) {
  std::vector<KeySpecView> out;
  if (resp3.empty()) return out;
  size_t pos = 0;
  const Node all = Read(resp3, pos);
  for (const Node& spec : all.items) {
    KeySpecView v;
    if (const Node* flags = spec.Get("flags")) {
      for (const Node& f : flags->items) v.flags.push_back(f.text);
    }
    const Node* begin = spec.Get("begin_search");
    const Node* find = spec.Get("find_keys");
    if (begin == nullptr || find == nullptr) continue;
    const Node* bs = begin->Get("spec");
    const Node* fk = find->Get("spec");
    if (bs == nullptr || fk == nullptr) continue;
    if (const Node* keyword = bs->Get("keyword")) {
      v.keyword = keyword->text;
      v.startfrom = int(bs->Int("startfrom"));
    } else {
      v.index = int(bs->Int("index"));
    }
    const Node* type = find->Get("type");
    v.keynum = type != nullptr && type->text == "keynum";
    if (v.keynum) {
      v.keynumidx = int(fk->Int("keynumidx"));
      v.firstkey = int(fk->Int("firstkey"));
      v.keystep = int(fk->Int("keystep"));
    } else {
      v.lastkey = int(fk->Int("lastkey"));
      v.keystep = int(fk->Int("keystep"));
      v.limit = int(fk->Int("limit"));
    }
    out.push_back(std::move(v));
  }
  return out;
}

bool KeySpecPositions(const KeySpecView& spec, ArgList args, std::vector<size_t>* out) {
  const int argc = int(args.size());
  int first = spec.index;
  if (!spec.keyword.empty()) {
    const bool forward = spec.startfrom > 0;
    const int start = forward ? spec.startfrom : argc + spec.startfrom;
    const int end = forward ? argc - 1 : 0;
    first = -1;
    for (int i = start; forward ? i <= end : i >= end; i += forward ? 1 : -1) {
      if (i >= 0 && i < argc && EqualsIgnoreCase(args[size_t(i)], spec.keyword)) {
        first = i + 1;
        break;
      }
    }
    if (first < 0) return false;
  }
  int last = 0;
  int step = spec.keystep;
  if (spec.keynum) {
    if (first + spec.keynumidx >= argc) return false;
    int64_t numkeys = 0;
    if (!ParseInt64(args[size_t(first + spec.keynumidx)], &numkeys) || numkeys < 0) {
      return false;
    }
    first += spec.firstkey;
    last = first + int(numkeys) - 1;
  } else if (spec.lastkey >= 0) {
    last = first + spec.lastkey;
  } else if (spec.limit == 0) {
    last = argc + spec.lastkey;
  } else {
    last = first + ((argc - first) / spec.limit + spec.lastkey);
  }
  if (step <= 0) step = 1;
  for (int i = first; i <= last; i += step) {
    // A variadic command given too few arguments: Redis finds no key there.
    if (i >= argc || i < first) continue;
    out->push_back(size_t(i));
  }
  return true;
}

}  // namespace rc
