// FunctionRegistry (shard/scripting/function_registry.h): what LOAD [REPLACE], DELETE,
// FLUSH and RESTORE's policies leave, which clashes they refuse without changing
// anything, case rules for names, and that every change moves the generation on (threads
// look their functions up again when it does).
#include "shard/scripting/function_registry.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace rc {
namespace {

LibraryPtr Lib(FunctionRegistry& r, std::string name, std::vector<std::string> functions) {
  auto lib = std::make_shared<Library>();
  lib->id = r.NextId();
  lib->name = std::move(name);
  lib->code = "#!lua name=" + lib->name + "\n";
  lib->body_offset = lib->code.size() - 1;
  for (std::string& f : functions) {
    FunctionInfo info;
    info.name = std::move(f);
    lib->functions.push_back(std::move(info));
  }
  return lib;
}

std::vector<std::string> Names(const FunctionRegistry& r) {
  std::vector<std::string> out;
  for (const LibraryPtr& lib : r.Libraries()) out.push_back(lib->name);
  return out;
}

std::string LibraryOf(const FunctionRegistry& r, std::string_view lowered) {
  FunctionRegistry::Found found;
  if (!r.Find(lowered, &found)) return "";
  return found.lib->name + "." + found.lib->functions[found.index].name;
}

TEST(FunctionRegistryTest, AddReplaceAndClashes) {
  FunctionRegistry r;
  std::string error;
  uint64_t g = r.generation();
  ASSERT_TRUE(r.Add(Lib(r, "b", {"f", "G"}), false, &error));
  EXPECT_GT(r.generation(), g);
  EXPECT_EQ(LibraryOf(r, "g"), "b.G");  // function names in any case
  EXPECT_FALSE(r.Add(Lib(r, "b", {"h"}), false, &error));
  EXPECT_EQ(error, "ERR Library 'b' already exists");
  EXPECT_FALSE(r.Add(Lib(r, "a", {"x", "F"}), false, &error));
  EXPECT_EQ(error, "ERR Function F already exists");
  EXPECT_EQ(LibraryOf(r, "x"), "");                       // refused whole
  ASSERT_TRUE(r.Add(Lib(r, "B", {"h"}), false, &error));  // library names are case-sensitive
  EXPECT_EQ(Names(r), (std::vector<std::string>{"B", "b"}));
  // REPLACE may keep its own function names but not take another library's.
  EXPECT_FALSE(r.Add(Lib(r, "b", {"f", "h"}), true, &error));
  EXPECT_EQ(error, "ERR Function h already exists");
  EXPECT_EQ(LibraryOf(r, "g"), "b.G");
  g = r.generation();
  ASSERT_TRUE(r.Add(Lib(r, "b", {"f", "k"}), true, &error));
  EXPECT_GT(r.generation(), g);
  EXPECT_EQ(LibraryOf(r, "g"), "");
  EXPECT_EQ(LibraryOf(r, "k"), "b.k");
  EXPECT_EQ(r.function_count(), 3u);
  EXPECT_EQ(r.library_count(), 2u);
}

TEST(FunctionRegistryTest, DeleteFlushAndLiveIds) {
  FunctionRegistry r;
  std::string error;
  LibraryPtr a = Lib(r, "a", {"f"});
  ASSERT_TRUE(r.Add(a, false, &error));
  EXPECT_TRUE(r.Live(a->id));
  EXPECT_GT(r.memory_bytes(), 0u);
  EXPECT_FALSE(r.Delete("A"));
  const uint64_t g = r.generation();
  EXPECT_TRUE(r.Delete("a"));
  EXPECT_GT(r.generation(), g);
  EXPECT_FALSE(r.Live(a->id));
  EXPECT_EQ(LibraryOf(r, "f"), "");
  EXPECT_EQ(r.memory_bytes(), 0u);
  ASSERT_TRUE(r.Add(Lib(r, "a", {"f"}), false, &error));
  r.Flush();
  EXPECT_EQ(r.library_count(), 0u);
  EXPECT_EQ(r.function_count(), 0u);
}

TEST(FunctionRegistryTest, RestorePolicies) {
  FunctionRegistry r;
  std::string error;
  ASSERT_TRUE(r.Add(Lib(r, "a", {"f"}), false, &error));
  ASSERT_TRUE(r.Add(Lib(r, "c", {"g"}), false, &error));
  // APPEND: a name taken is an error (Redis's text has no quotes here), nothing changes.
  EXPECT_FALSE(
      r.Restore({Lib(r, "a", {"f2"}), Lib(r, "d", {"h"})}, RestorePolicy::kAppend, &error));
  EXPECT_EQ(error, "ERR Library a already exists");
  EXPECT_EQ(Names(r), (std::vector<std::string>{"a", "c"}));
  // REPLACE: libraries of the same name go, but a function of one that stays may not clash.
  EXPECT_FALSE(
      r.Restore({Lib(r, "a", {"f2"}), Lib(r, "d", {"G"})}, RestorePolicy::kReplace, &error));
  EXPECT_EQ(error, "ERR Function G already exists");
  EXPECT_EQ(LibraryOf(r, "f"), "a.f");
  ASSERT_TRUE(
      r.Restore({Lib(r, "a", {"f2"}), Lib(r, "d", {"h"})}, RestorePolicy::kReplace, &error));
  EXPECT_EQ(Names(r), (std::vector<std::string>{"a", "c", "d"}));
  EXPECT_EQ(LibraryOf(r, "f"), "");
  EXPECT_EQ(LibraryOf(r, "f2"), "a.f2");
  // FLUSH: only the payload's libraries are left.
  ASSERT_TRUE(r.Restore({Lib(r, "z", {"g"})}, RestorePolicy::kFlush, &error));
  EXPECT_EQ(Names(r), (std::vector<std::string>{"z"}));
  EXPECT_EQ(LibraryOf(r, "g"), "z.g");
}

}  // namespace
}  // namespace rc
