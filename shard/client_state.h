#pragma once
// Per-connection state that commands read and change (CLIENT, SELECT, QUIT). Lives in
// the connection, on its thread.

#include <cstdint>
#include <string>

namespace rc {

struct ClientState {
  uint64_t id = 0;
  std::string name;
  std::string lib_name;
  std::string lib_ver;
  std::string addr;
  std::string laddr;
  int fd = -1;
  int64_t created_ms = 0;
  // Set by QUIT: close once the reply has been written.
  bool close_after_reply = false;
};

}  // namespace rc
