#include "shard/runtime/replication_hub.h"

#include <utility>

#include "shard/runtime/shard_set.h"
#include "shard/state/server_state.h"

namespace rc {

void ReplicationHub::Feed(std::string_view records) {
  std::lock_guard<std::mutex> lock(mu_);
  offset_.fetch_add(int64_t(records.size()), std::memory_order_relaxed);
  for (auto& [id, r] : replicas_) {
    r.queued.append(records);
    if (r.view.online) PostDelivery(id, r);
  }
}

int64_t ReplicationHub::Attach(uint64_t id, uint32_t thread, std::string ip, int port) {
  std::lock_guard<std::mutex> lock(mu_);
  Replica& r = replicas_[id];
  r.thread = thread;
  r.view.ip = std::move(ip);
  r.view.port = port;
  count_.store(int(replicas_.size()), std::memory_order_relaxed);
  return offset_.load(std::memory_order_relaxed);
}

void ReplicationHub::Online(uint64_t id) {
  std::lock_guard<std::mutex> lock(mu_);
  auto it = replicas_.find(id);
  if (it == replicas_.end()) return;
  it->second.view.online = true;
  if (!it->second.queued.empty()) PostDelivery(id, it->second);
}

void ReplicationHub::Detach(uint64_t id) {
  std::lock_guard<std::mutex> lock(mu_);
  replicas_.erase(id);
  count_.store(int(replicas_.size()), std::memory_order_relaxed);
}

void ReplicationHub::DisconnectAll() {
  std::map<uint64_t, Replica> gone;
  {
    std::lock_guard<std::mutex> lock(mu_);
    gone.swap(replicas_);
    count_.store(0, std::memory_order_relaxed);
  }
  for (const auto& [id, r] : gone) {
    std::vector<Message> batch;
    batch.emplace_back([this, id = id, thread = r.thread] {
      if (ClientHandle* c = shards_.thread(thread).clients().Find(id)) c->Kill(false);
    });
    if (shards_.thread(r.thread).inbox().PushBatch(&batch) && server_ != nullptr &&
        server_->wake_all) {
      server_->wake_all();
    }
  }
}

void ReplicationHub::Ack(uint64_t id, int64_t offset, int64_t now_ms) {
  std::lock_guard<std::mutex> lock(mu_);
  auto it = replicas_.find(id);
  if (it == replicas_.end()) return;
  it->second.view.ack_offset = offset;
  it->second.view.ack_ms = now_ms;
}

void ReplicationHub::PingIfDue(AofJournal& journal, int64_t now_ms) {
  constexpr int64_t kPingEveryMs = 10'000;
  if (!any() || now_ms - last_ping_ms_ < kPingEveryMs) return;
  last_ping_ms_ = now_ms;
  journal.AppendToTap("*1\r\n$4\r\nPING\r\n");
}

std::vector<ReplicationHub::View> ReplicationHub::List() const {
  std::lock_guard<std::mutex> lock(mu_);
  std::vector<View> out;
  for (const auto& [id, r] : replicas_) out.push_back(r.view);
  return out;
}

void ReplicationHub::PostDelivery(uint64_t id, Replica& r) {
  if (r.delivery_posted) return;
  r.delivery_posted = true;
  std::vector<Message> batch;
  batch.emplace_back([this, id] { Deliver(id); });
  if (shards_.thread(r.thread).inbox().PushBatch(&batch) && server_ != nullptr && server_->wake_all) {
    server_->wake_all();
  }
}

void ReplicationHub::Deliver(uint64_t id) {
  std::string bytes;
  uint32_t thread = 0;
  {
    std::lock_guard<std::mutex> lock(mu_);
    auto it = replicas_.find(id);
    if (it == replicas_.end()) return;
    it->second.delivery_posted = false;
    bytes.swap(it->second.queued);
    thread = it->second.thread;
  }
  if (bytes.empty()) return;
  ClientHandle* c = shards_.thread(thread).clients().Find(id);
  if (c != nullptr) c->PushMonitorLine(std::move(bytes));
}

}  // namespace rc
