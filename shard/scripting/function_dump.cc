#include "shard/scripting/function_dump.h"

#include "core/rdb.h"
#include "core/strings.h"

namespace rc {

namespace {

// Redis's footer is 10 bytes: items are read while more than that is left.
constexpr size_t kFooterBytes = 10;

// A library of the pre-GA format: its name, engine, optional description and code, made
// into the code FUNCTION LOAD takes.
bool ReadPreGa(RdbReader& in, std::string* code, std::string* error) {
  std::string name, engine, description, blob;
  uint64_t has_description = 0;
  if (!in.ReadString(&name)) {
    *error = "ERR Failed loading library name";
  } else if (!in.ReadString(&engine)) {
    *error = "ERR Failed loading engine name";
  } else if (!in.ReadLength(&has_description)) {
    *error = "ERR Failed loading library description indicator";
  } else if (has_description != 0 && !in.ReadString(&description)) {
    *error = "ERR Failed loading library description";
  } else if (!in.ReadString(&blob)) {
    *error = "ERR Failed loading library blob";
  } else {
    *code = StrCat("#!", engine, " name=", name, "\n", blob);
    return true;
  }
  return false;
}

}  // namespace

std::string DumpLibraries(const std::vector<LibraryPtr>& libraries) {
  std::string out;
  for (const LibraryPtr& lib : libraries) {
    out.push_back(char(kRdbOpcodeFunction2));
    RdbAppendString(lib->code, &out);
  }
  AppendDumpFooter(&out);
  return out;
}

bool UndumpLibraries(std::string_view payload,
                     absl::FunctionRef<bool(std::string_view code, std::string* error)> each,
                     std::string* error) {
  uint16_t version = 0;
  if (!VerifyDumpFooter(payload, &version)) {
    *error = "ERR DUMP payload version or checksum are wrong";
    return false;
  }
  RdbReader in(payload);
  while (in.remaining() > kFooterBytes) {
    uint8_t type = 0;
    if (!in.ReadByte(&type)) {
      *error = "ERR can not read data type";
      return false;
    }
    std::string code;
    if (type == kRdbOpcodeFunctionPreGa) {
      if (!ReadPreGa(in, &code, error)) return false;
    } else if (type != kRdbOpcodeFunction2) {
      *error = "ERR given type is not a function";
      return false;
    } else if (!in.ReadString(&code)) {
      *error = "ERR Failed loading library payload";
      return false;
    }
    if (!each(code, error)) return false;
  }
  return true;
}

}  // namespace rc
