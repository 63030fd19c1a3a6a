// The reactor's turn from inside a busy script (BusyTurn; docs/SCRIPTING.md, "Busy
// scripts"), Redis's processEventsWhileBlocked. It runs at every check of the script
// (LuaEngine's count hook) once the script is past busy-reply-threshold, on the stack of
// whatever ran the script:
//
//   Reactor::Run ─▶ RunInbox (a hop batch, a multi-shard script's step) ─┐
//               └▶ HandleEvents ─▶ Connection::ParseAndRun ─▶ Dispatch ───┴▶ the script
//        ─▶ Lua count hook ─▶ ScriptWatchdog::Interrupted ─▶ ServeWhileBusy
//
// What it may touch, and why:
//   - The inbox, only the tasks marked while_busy: hop batches, which answer -BUSY
//     without touching the shard (Dispatcher::AnswerBusy), and their replies. Every other
//     task (lock and fan-out steps, multi-shard scripts' steps, deliveries) could touch
//     the shard mid-script or re-enter Lua: ShardThread holds it back, in order. In the
//     hop batch that runs the script, the replies of the commands before it leave, and
//     the commands after it answer -BUSY (Dispatcher::AnswerAroundBusyScript).
//   - I/O: the engines keep apart what the outer turn is iterating (io_uring: each
//     completion leaves the ring before it is handled; epoll: a second event array and
//     read buffer). Accepts, reads, sends and closes run as usual, except for connections
//     in use below us (Connection::InUse: a parse loop on the stack, or the caller of a
//     multi-shard script): their input and end of input are kept (Keep) until the outer
//     turn, and their output is not sent, since a reply builder below may be appending
//     to it. Nothing is freed here (FreeClosed is the outer turn's): pointers below stay
//     valid.
//   - Commands of the other connections run through the dispatcher, which answers -BUSY
//     to all but allow_busy ones (busy_refusal.h); those touch only their connection and
//     server-wide state (SCRIPT KILL, SHUTDOWN NOSAVE, AUTH, HELLO, MULTI, WATCH, ...).
//   - Posts to other threads leave (the outbox), so -BUSY replies reach their clients.
// Not here: cron, idle timeouts, blocked clients' timeouts, expiry, eviction, keyspace
// events: the outer turn does them once the script has ended.

#include "net/reactor.h"
#include "timers/clock.h"

namespace rc::net {

void Reactor::ServeWhileBusy() {
  if (nested_) return;  // never twice on the stack: nothing here runs a script
  nested_ = true;
  now_ns_ = MonotonicNanos();
  dispatcher().AnswerAroundBusyScript(shard_thread());
  shard_thread().RunInboxWhileBusy();
  Poll(0);
  HandleEvents();
  shards_.FlushOutbox(id_, *this);
  FlushSends();
  Submit();
  nested_ = false;
}

void Reactor::OnSocketGone(Connection* c) {
  if (nested_ && c->InUse()) return Keep(c, {}, /*gone=*/true);
  Close(c);
}

void Reactor::Keep(Connection* c, std::string_view data, bool gone) {
  Kept* k = nullptr;
  for (Kept& e : kept_) {
    if (e.c == c) k = &e;
  }
  if (k == nullptr) k = &kept_.emplace_back(Kept{c, {}, false});
  if (k->gone) return;  // nothing counts after the end of input
  k->data.append(data);
  k->gone = gone;
}

void Reactor::ReplayKept() {
  // A replayed command may run a busy script again, whose turns keep more: those go to a
  // fresh list, for the next turn.
  std::vector<Kept> kept;
  kept.swap(kept_);
  for (Kept& k : kept) {
    if (k.c->closing()) continue;
    if (!k.data.empty()) Feed(k.c, k.data.data(), k.data.size());
    if (k.gone && !k.c->closing()) Close(k.c);
  }
}

}  // namespace rc::net
