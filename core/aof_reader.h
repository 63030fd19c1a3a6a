#pragma once
// The commands of an append-only file (an incr file, or a base written as commands), read
// the way Redis 7.0's loadSingleAppendOnlyFile reads them, and written the way it writes
// them. Pure; any thread.
//
// Redis reads with fgets into a 1024-byte buffer and atoi/strtol, so it is lenient where
// a strict RESP parser would not be, and this reader is lenient in the same places: a
// line ends at '\n' (its '\r' and anything after the number are ignored), the two bytes
// after an argument are skipped unchecked, and a line longer than 1023 bytes is read as
// several (so an annotation of 1024 bytes or more is a format error). Tests compare with
// files redis-server 7.0.15 itself loaded, truncated or refused.

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

#include "absl/types/span.h"

namespace rc {

class AofCommandReader {
 public:
  enum class Result {
    kCommand,    // *argv holds the next command
    kEnd,        // the data ended between commands (see in_multi())
    kTruncated,  // the data ended inside a command: Redis's "Unexpected end of file"
    kCorrupt,    // Redis's "Bad file format" (or its unrecoverable read error)
  };

  explicit AofCommandReader(std::string_view data) : data_(data) {}
  explicit AofCommandReader(std::string&&) = delete;  // the views would dangle

  // The next command; its views point into the data. After anything but kCommand, every
  // later call returns the same result.
  Result Next(std::vector<std::string_view>* argv);

  // Offset just past the last whole command (annotations after it do not count): where
  // Redis truncates the last file after kTruncated, with aof-load-truncated yes.
  size_t valid_end() const { return valid_end_; }
  // Whether a MULTI read has not met its EXEC. Redis treats kEnd in that state as a
  // truncated tail and truncates at valid_before_multi() instead (the commands queued
  // since are never run); after kTruncated it truncates at valid_end() even then.
  bool in_multi() const { return in_multi_; }
  // valid_end() as it was when the latest MULTI was read (a MULTI inside a MULTI, which
  // Redis queues, moves it too, as in Redis).
  size_t valid_before_multi() const { return valid_before_multi_; }
  // Where the line that made the data corrupt starts, or for kTruncated where the
  // unfinished command starts.
  size_t error_offset() const { return error_offset_; }

 private:
  bool ReadLine(std::string_view* line);

  std::string_view data_;
  size_t pos_ = 0;
  size_t valid_end_ = 0;
  size_t valid_before_multi_ = 0;
  size_t error_offset_ = 0;
  bool in_multi_ = false;
  bool eof_ = false;                // stdio's feof(): a read stopped at the end of the data
  Result done_ = Result::kCommand;  // the sticky result once not kCommand
};

// Whether the data is in RDB format ("REDIS" magic): an RDB base file, or a pre-7.0 AOF
// with an RDB preamble whose command tail follows the RDB's end.
inline bool AofIsRdbPreamble(std::string_view data) { return data.substr(0, 5) == "REDIS"; }

// Appends `argv` as Redis writes a command to the AOF: `*N\r\n`, then `$len\r\narg\r\n`
// per argument.
void AofAppendCommand(absl::Span<const std::string_view> argv, std::string* out);

}  // namespace rc
