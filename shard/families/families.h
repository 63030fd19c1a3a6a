#pragma once
// The complete command table: every family's rows (families.cc lists the families).

#include "shard/wire/command.h"

namespace rc {

CommandTable BuildCommandTable();

}  // namespace rc
