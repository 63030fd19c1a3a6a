// The list primitives (list_ops.h). Across shards, LMOVE and LMPOP take the multi-shard
// path of SMOVE (shard/command/multi_shard.h):
//
//   lock the keys ─▶ each shard reports its keys (LMOVE: the source copies out the
//   element it will give) ─▶ the connection's thread decides ─▶ the shards named by the
//   decision pop / push, every shard releases ─▶ reply

#include "shard/families/list/list_ops.h"

#include <memory>
#include <utility>

#include "core/entry.h"
#include "core/strings.h"
#include "shard/command/deferred_reply.h"
#include "shard/command/errors.h"
#include "shard/command/key_groups.h"
#include "shard/command/multi_shard.h"
#include "shard/runtime/notify.h"
#include "shard/runtime/shard.h"
#include "shard/state/server_state.h"

namespace rc {

List::Limits ListLimits(const ServerState& server) {
  return {server.config.list_max_listpack_size.get()};
}

bool ParseListEnd(std::string_view arg, List::End* end) {
  if (EqualsIgnoreCase(arg, "left")) {
    *end = List::End::kHead;
  } else if (EqualsIgnoreCase(arg, "right")) {
    *end = List::End::kTail;
  } else {
    return false;
  }
  return true;
}

bool FindListForWrite(Shard& shard, std::string_view key, Entry** out) {
  Entry* e = shard.Find(key);
  if (e != nullptr && e->type() != ValueType::kList) return false;
  *out = e;
  return true;
}

namespace {

std::string_view PushEvent(List::End end) { return end == List::End::kHead ? "lpush" : "rpush"; }
std::string_view PopEvent(List::End end) { return end == List::End::kHead ? "lpop" : "rpop"; }

// Pops one element into a string, without events (the caller raises them in Redis's
// order). Returns whether the list still exists.
bool PopOne(Shard& shard, Entry* e, List::End end, std::string* elem) {
  ValueUpdate update(shard, e);
  update.get<List>().Pop(end, 1, [&](std::string_view v) { elem->assign(v); });
  return update.Finish();
}

// Where a key stands for LMOVE / LMPOP.
struct LMoveSeen {
  bool exists = false;
  bool wrongtype = false;
  std::string elem;  // LMOVE's source: the element it gives
};

LMoveSeen See(Shard& shard, std::string_view key, const List::End* give) {
  LMoveSeen k;
  Entry* e = shard.Find(key);
  if (e == nullptr) return k;
  k.exists = true;
  k.wrongtype = e->type() != ValueType::kList;
  if (!k.wrongtype && give != nullptr) {
    const List& l = *e->object<List>();
    char buf[List::kBufBytes];
    k.elem = std::string(l.At(*give == List::End::kHead ? 0 : l.size() - 1, buf));
  }
  return k;
}

struct LMovePlan {
  std::string error;
  bool move = false;  // false without error: the source is missing (a null reply)
  std::string elem;
};

}  // namespace

size_t PushList(Shard& shard, const ServerState& server, std::string_view key, Entry* e,
                List::End end, ArgList elems) {
  if (e == nullptr) e = shard.Add(key, Value::Make<List>());
  const List::Limits limits = ListLimits(server);
  size_t len;
  {
    ValueUpdate update(shard, e);
    List& l = update.get<List>();
    for (std::string_view v : elems) l.Push(v, end, limits);
    len = l.size();
  }
  shard.Notify(kNotifyList, PushEvent(end), key);
  return len;
}

size_t PopList(Shard& shard, std::string_view key, Entry* e, List::End end, size_t count,
               absl::FunctionRef<void(std::string_view)> fn) {
  size_t popped;
  bool exists;
  {
    ValueUpdate update(shard, e);
    popped = update.get<List>().Pop(end, count, fn);
    if (popped == 0) update.NothingChanged();
    exists = update.Finish();
  }
  if (popped > 0) {
    shard.Notify(kNotifyList, PopEvent(end), key);
    if (!exists) shard.Notify(kNotifyGeneric, "del", key);
  }
  return popped;
}

void MoveLocal(ShardCmd& cmd, std::string_view src, std::string_view dst, List::End from,
               List::End to) {
  Entry* s;
  Entry* d;
  if (!FindListForWrite(cmd.shard, src, &s)) return cmd.reply.Error(err::kWrongType);
  if (s == nullptr) return cmd.reply.NullBulk();
  if (!FindListForWrite(cmd.shard, dst, &d)) return cmd.reply.Error(err::kWrongType);
  std::string elem;
  if (s == d) {
    // Rotation: the list never empties, as Redis pops and pushes the same object.
    {
      ValueUpdate update(cmd.shard, s);
      List& l = update.get<List>();
      l.Pop(from, 1, [&](std::string_view v) { elem.assign(v); });
      l.Push(elem, to, ListLimits(cmd.server));
    }
    cmd.shard.Notify(kNotifyList, PushEvent(to), dst);
    cmd.shard.Notify(kNotifyList, PopEvent(from), src);
    return cmd.reply.Bulk(elem);
  }
  const bool src_left = PopOne(cmd.shard, s, from, &elem);
  std::string_view one[] = {elem};
  PushList(cmd.shard, cmd.server, dst, cmd.shard.Find(dst), to, one);
  cmd.shard.Notify(kNotifyList, PopEvent(from), src);
  if (!src_left) cmd.shard.Notify(kNotifyGeneric, "del", src);
  cmd.reply.Bulk(elem);
}

void MoveCoord(CoordCmd& cmd, std::string_view src, std::string_view dst, List::End from,
               List::End to) {
  std::string_view keys[] = {src, dst};
  auto groups = std::make_shared<const KeyGroups>(cmd.shards, ArgList(keys, 2), 0, 1);
  const ServerState* server = &cmd.server;
  DeferredReply out(cmd);
  LockedReadThenWrite(
      cmd, LockKeys(groups),
      [groups, from](Shard& shard, size_t gi) {
        const bool is_src = groups->Items(gi)[0] == 0;
        return std::make_pair(is_src, See(shard, groups->Args(gi)[0], is_src ? &from : nullptr));
      },
      [](std::vector<std::pair<bool, LMoveSeen>>& seen) {
        LMoveSeen s, d;
        for (auto& [is_src, k] : seen) (is_src ? s : d) = std::move(k);
        LMovePlan p;
        if (!s.exists) return p;
        if (s.wrongtype || d.wrongtype) {
          p.error = std::string(err::kWrongType);
          return p;
        }
        p.move = true;
        p.elem = std::move(s.elem);
        return p;
      },
      [groups, server, from, to](Shard& shard, size_t gi, const LMovePlan& p) {
        if (!p.move) return;
        const std::string_view key = groups->Args(gi)[0];
        if (groups->Items(gi)[0] == 0) {
          std::string elem;
          const bool left = PopOne(shard, shard.Find(key), from, &elem);
          shard.Notify(kNotifyList, PopEvent(from), key);
          if (!left) shard.Notify(kNotifyGeneric, "del", key);
        } else {
          std::string_view one[] = {p.elem};
          PushList(shard, *server, key, shard.Find(key), to, one);
        }
      },
      [out](const LMovePlan& p) {
        out.Send([&](ReplyBuilder& rb) {
          if (!p.error.empty()) return rb.Error(p.error);
          if (!p.move) return rb.NullBulk();
          rb.Bulk(p.elem);
        });
      });
}

void ReplyKeyAndElements(ReplyBuilder& rb, std::string_view key,
                         const std::vector<std::string>& elems) {
  rb.ArrayLen(2);
  rb.Bulk(key);
  rb.ArrayLen(elems.size());
  for (const std::string& v : elems) rb.Bulk(v);
}

namespace {

struct MPopPlan {
  std::string error;
  int64_t item = -1;  // the key popped from, -1: none
  // Filled by the write step of the popped key's shard only, read by `done` after every
  // write step has finished.
  mutable std::vector<std::string> popped;
};

}  // namespace

void MPopCoord(CoordCmd& cmd, std::vector<std::string_view> keys, List::End end, size_t count) {
  auto groups =
      std::make_shared<const KeyGroups>(cmd.shards, ArgList(keys.data(), keys.size()), 0, 1);
  DeferredReply out(cmd);
  LockedReadThenWrite(
      cmd, LockKeys(groups),
      [groups](Shard& shard, size_t gi) {
        std::vector<std::pair<uint32_t, LMoveSeen>> seen;
        for (size_t k = 0; k < groups->Items(gi).size(); ++k) {
          seen.emplace_back(groups->Items(gi)[k], See(shard, groups->Args(gi)[k], nullptr));
        }
        return seen;
      },
      [groups](std::vector<std::vector<std::pair<uint32_t, LMoveSeen>>>& parts) {
        std::vector<const LMoveSeen*> by_item(groups->item_count());
        for (const auto& part : parts) {
          for (const auto& [item, k] : part) by_item[item] = &k;
        }
        MPopPlan p;
        for (size_t i = 0; i < by_item.size(); ++i) {
          if (!by_item[i]->exists) continue;
          if (by_item[i]->wrongtype) {
            p.error = std::string(err::kWrongType);
            return p;
          }
          p.item = int64_t(i);
          return p;
        }
        return p;
      },
      [groups, end, count](Shard& shard, size_t gi, const MPopPlan& p) {
        if (p.item < 0) return;
        for (size_t k = 0; k < groups->Items(gi).size(); ++k) {
          if (groups->Items(gi)[k] != uint32_t(p.item)) continue;
          const std::string_view key = groups->Args(gi)[k];
          PopList(shard, key, shard.Find(key), end, count,
                  [&](std::string_view v) { p.popped.emplace_back(v); });
          return;
        }
      },
      [out, keys = std::vector<std::string>(keys.begin(), keys.end())](const MPopPlan& p) {
        out.Send([&](ReplyBuilder& rb) {
          if (!p.error.empty()) return rb.Error(p.error);
          if (p.item < 0) return rb.NullArray();
          ReplyKeyAndElements(rb, keys[size_t(p.item)], p.popped);
        });
      });
}

}  // namespace rc
