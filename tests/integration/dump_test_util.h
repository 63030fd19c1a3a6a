#pragma once
// What the DUMP / RESTORE / MIGRATE tests share: DUMP payloads as bytes, a key's value as
// one comparable string whatever the server's iteration order, and a payload footer (the
// tests are clients: they carry their own CRC-64, Redis's Jones polynomial).

#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

#include "tests/integration/server_process.h"

namespace rc::it {

// The payload DUMP `key` answers, or "" for a missing key / an error.
inline std::string DumpOf(Client& c, const std::string& key) {
  Client::ReplyPtr r = c.RawCmd({"DUMP", key});
  if (!r || r->type != REDIS_REPLY_STRING) return "";
  return std::string(r->str, r->len);
}

// TYPE, then the contents: sets and hashes sorted, lists and sorted sets in order.
inline std::string ValueOf(Client& c, const std::string& key) {
  const std::string type = c.Cmd({"TYPE", key});
  auto strings = [&](const Args& cmd) {
    Client::ReplyPtr r = c.RawCmd(cmd);
    return r ? Strings(r.get()) : std::vector<std::string>{};
  };
  std::vector<std::string> parts;
  if (type == "+string") return type + " " + c.Cmd({"GET", key});
  if (type == "+list") parts = strings({"LRANGE", key, "0", "-1"});
  if (type == "+zset") parts = strings({"ZRANGE", key, "0", "-1", "WITHSCORES"});
  if (type == "+set") {
    parts = strings({"SMEMBERS", key});
    std::sort(parts.begin(), parts.end());
  }
  if (type == "+hash") {
    std::vector<std::string> flat = strings({"HGETALL", key});
    for (size_t i = 0; i + 1 < flat.size(); i += 2) parts.push_back(flat[i] + "=" + flat[i + 1]);
    std::sort(parts.begin(), parts.end());
  }
  std::string out = type;
  for (const std::string& p : parts) out += " " + p;
  return out;
}

inline uint64_t Crc64Jones(std::string_view data) {
  uint64_t crc = 0;
  for (unsigned char b : data) {
    crc ^= b;
    for (int i = 0; i < 8; ++i) crc = (crc >> 1) ^ ((crc & 1) ? 0x95AC9329AC4BC9B5ULL : 0);
  }
  return crc;
}

// `body` (type byte and value) as a DUMP payload of RDB version `version`.
inline std::string WithFooter(std::string body, uint16_t version = 10) {
  body.push_back(char(version & 0xff));
  body.push_back(char(version >> 8));
  const uint64_t crc = Crc64Jones(body);
  for (int i = 0; i < 8; ++i) body.push_back(char((crc >> (8 * i)) & 0xff));
  return body;
}

}  // namespace rc::it
