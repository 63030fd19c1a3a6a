#pragma once
// Redis 7.0's multi-part AOF manifest (appenddirname/<appendfilename>.manifest): one line
// per file, `file <name> seq <n> type <b|h|i>`, read and written byte for byte as Redis
// 7.0.15 does (aofLoadManifestFromFile, getAofManifestAsString), and the files' names.
// Pure; any thread.

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace rc {

struct AofFileInfo {
  std::string name;
  int64_t seq = 0;
  char type = 'i';  // 'b' base, 'h' history (a former base or incr, kept until deleted), 'i' incr
};

struct AofManifest {
  // As Redis keeps and writes them: the base if any, the history files, then the incr
  // files in the order they are replayed. A parsed manifest is in this order whatever
  // its lines' order was.
  std::vector<AofFileInfo> files;
  int64_t curr_base_seq = 0;  // the base's seq (the next base takes one more)
  int64_t curr_incr_seq = 0;  // the last incr's seq (the next incr takes one more)

  const AofFileInfo* base() const;
  std::vector<const AofFileInfo*> incrs() const;
};

// False, with Redis's message in *error ("Invalid AOF manifest file format", "Found an
// empty AOF manifest", ...), for a manifest Redis refuses to start with. As Redis: keys
// in any order and case, extra key/value pairs ignored, `#` lines skipped, sdssplitargs
// quoting, only the first byte of the type read, each line (with its '\n', which the last
// one needs too) at most 1024 bytes. A manifest of comments alone parses to no files.
bool ParseAofManifest(std::string_view text, AofManifest* out, std::string* error);

// The manifest's text: the base, the history files, then the incr files (each kind in
// the order of `files`), a name quoted as sdscatrepr does when it needs to be.
std::string FormatAofManifest(const AofManifest& m);

// appendonly.aof.1.base.rdb (.base.aof without the RDB format), appendonly.aof.1.incr.aof,
// appendonly.aof.manifest.
std::string AofBaseName(std::string_view appendfilename, int64_t seq, bool rdb_preamble);
std::string AofIncrName(std::string_view appendfilename, int64_t seq);
std::string AofManifestName(std::string_view appendfilename);

}  // namespace rc
