#include "shard/families/families.h"

namespace rc {

// Each family registers its rows from its own folder (shard/families/<family>/); a new
// family is one declaration and one call here.
void RegisterStringCommands(CommandTable& table);
void RegisterBitmapCommands(CommandTable& table);
void RegisterKeyspaceCommands(CommandTable& table);
void RegisterDumpCommands(CommandTable& table);
void RegisterExpireCommands(CommandTable& table);
void RegisterZSetCommands(CommandTable& table);
void RegisterZSetBlockingCommands(CommandTable& table);
void RegisterListBlockingCommands(CommandTable& table);
void RegisterHashCommands(CommandTable& table);
void RegisterSetCommands(CommandTable& table);
void RegisterListCommands(CommandTable& table);
void RegisterPubSubCommands(CommandTable& table);
void RegisterConnectionCommands(CommandTable& table);
void RegisterAdminCommands(CommandTable& table);
void RegisterTransactionCommands(CommandTable& table);
void RegisterSlowlogCommands(CommandTable& table);
void RegisterLatencyCommands(CommandTable& table);
void RegisterMemoryCommands(CommandTable& table);
void RegisterObjectCommands(CommandTable& table);
void RegisterClusterCommands(CommandTable& table);
void RegisterScriptingCommands(CommandTable& table);
void RegisterFunctionCommands(CommandTable& table);
void RegisterSaveCommands(CommandTable& table);
void RegisterReplicationCommands(CommandTable& table);

CommandTable BuildCommandTable() {
  CommandTable table;
  RegisterStringCommands(table);
  RegisterBitmapCommands(table);
  RegisterKeyspaceCommands(table);
  RegisterDumpCommands(table);
  RegisterExpireCommands(table);
  RegisterZSetCommands(table);
  RegisterZSetBlockingCommands(table);
  RegisterListBlockingCommands(table);
  RegisterHashCommands(table);
  RegisterSetCommands(table);
  RegisterListCommands(table);
  RegisterPubSubCommands(table);
  RegisterConnectionCommands(table);
  RegisterAdminCommands(table);
  RegisterTransactionCommands(table);
  RegisterSlowlogCommands(table);
  RegisterLatencyCommands(table);
  RegisterMemoryCommands(table);
  RegisterObjectCommands(table);
  RegisterClusterCommands(table);
  RegisterScriptingCommands(table);
  RegisterFunctionCommands(table);
  RegisterSaveCommands(table);
  RegisterReplicationCommands(table);
  table.AssignStatIds();
  return table;
}

}  // namespace rc
