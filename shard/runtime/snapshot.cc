#include "shard/runtime/snapshot.h"

#include "core/rdb.h"
#include "core/rdb_value.h"

namespace rc {

namespace {
// A slice stops after this many entries or bytes, whichever comes first: about 100 µs of
// small keys, so a turn that also serves clients stays short.
constexpr size_t kSliceEntries = 512;
constexpr size_t kSliceBytes = 64 * 1024;
// Chunks of about this size go to the sink: large enough that the writer's queue costs
// nothing per record, small enough to keep memory flat.
constexpr size_t kChunkBytes = 256 * 1024;
}  // namespace

void AppendRdbRecord(const Entry& e, bool compress, std::string* out) {
  if (e.has_ttl()) {
    out->push_back(char(kRdbOpcodeExpireMs));
    const uint64_t ms = uint64_t(e.deadline());
    for (int i = 0; i < 8; ++i) out->push_back(char((ms >> (8 * i)) & 0xff));
  }
  out->push_back(char(RdbObjectType(e)));
  RdbAppendString(e.key(), out, compress);
  RdbAppendObject(e, compress, out);
}

void ShardSnapshot::Begin(uint32_t shard, std::shared_ptr<SnapshotSink> sink) {
  shard_ = shard;
  sink_ = std::move(sink);
  epoch_ = !epoch_;
  cursor_ = 0;
  table_done_ = false;
  adopted_cursor_ = 0;
  next_key_us_ = 0;
}

void ShardSnapshot::Write(const Entry& e) {
  const_cast<Entry&>(e).set_saved_mark(epoch_);
  if (sink_ == nullptr || sink_->Failed()) return;
  const size_t before = buffer_.size();
  AppendRdbRecord(e, sink_->compress(), &buffer_);
  written_ += buffer_.size() - before;
  if (buffer_.size() >= kChunkBytes) Send(false);
}

void ShardSnapshot::Send(bool force) {
  if (buffer_.empty() && !force) return;
  if (!buffer_.empty() && !sink_->Failed()) sink_->Write(shard_, std::move(buffer_));
  buffer_ = std::string();
}

void ShardSnapshot::Adopt(std::unique_ptr<EntryTable> table) {
  if (table->size() > 0) adopted_.push_back(std::move(table));
}

bool ShardSnapshot::Walk(EntryTable& t, uint64_t* cursor, size_t* budget) {
  do {
    *cursor = t.Scan(*cursor, [&](const Entry* e) {
      if (e->saved_mark() == epoch_) return;
      Write(*e);
      *budget = *budget > 0 ? *budget - 1 : 0;
    });
  } while (*cursor != 0 && *budget > 0);
  return *cursor != 0;
}

SnapshotProgress ShardSnapshot::Step(EntryTable& table, int64_t now_us,
                                     std::vector<std::unique_ptr<EntryTable>>* done) {
  if (sink_ == nullptr) return SnapshotProgress::kDone;
  const bool failed = sink_->Failed();
  if (!failed && sink_->Backlogged()) return SnapshotProgress::kWaiting;
  size_t budget = kSliceEntries;
  const int64_t delay = failed ? 0 : sink_->key_delay_us();
  if (delay > 0) {
    if (now_us < next_key_us_) return SnapshotProgress::kWaiting;
    budget = 1;
    next_key_us_ = now_us + delay;
  }
  const size_t written_before = written_;
  while (budget > 0 && written_ - written_before < kSliceBytes) {
    if (!table_done_) {
      table_done_ = !Walk(table, &cursor_, &budget);
      continue;
    }
    if (adopted_.empty()) break;
    if (!Walk(*adopted_.back(), &adopted_cursor_, &budget)) {
      done->push_back(std::move(adopted_.back()));
      adopted_.pop_back();
      adopted_cursor_ = 0;
    }
  }
  if (!table_done_ || !adopted_.empty()) {
    return delay > 0 ? SnapshotProgress::kWaiting : SnapshotProgress::kMore;
  }
  Send(false);
  std::shared_ptr<SnapshotSink> sink = std::move(sink_);
  sink->ShardDone(shard_);
  return SnapshotProgress::kDone;
}

}  // namespace rc
