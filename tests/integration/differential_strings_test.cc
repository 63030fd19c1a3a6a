// String commands sent to ringcache (1, 2 and 3 threads) and to redis-server; every reply
// must be identical. Counters (INCR family) are in differential_counters_test.cc.

#include <string>

#include "tests/integration/fixtures.h"

namespace rc::it {
namespace {

class DiffStringsTest : public DiffTest {};

TEST_P(DiffStringsTest, SetGetBasicsAndBinaryValues) {
  Script({
      {"GET", "k"},
      {"SET", "k", "v"},
      {"GET", "k"},
      {"SET", "k", ""},
      {"GET", "k"},
      {"STRLEN", "k"},
      {"SET", "bin", std::string("a\0b\r\nc\xff", 7)},
      {"GET", "bin"},
      {"STRLEN", "bin"},
      {"SET", "", "empty key"},
      {"GET", ""},
      {"SET", "k", std::string(5000, 'x')},
      {"GET", "k"},
      {"set", "lower", "case"},
      {"gEt", "lower"},
      {"SET", "k"},
      {"SET"},
      {"GET"},
      {"GET", "a", "b"},
  });
}

TEST_P(DiffStringsTest, SetConditionsAndGetOption) {
  Script({
      {"SET", "k", "v1", "NX"},
      {"SET", "k", "v2", "NX"},
      {"GET", "k"},
      {"SET", "k", "v3", "XX"},
      {"SET", "nokey", "v", "XX"},
      {"GET", "nokey"},
      {"SET", "k", "v4", "GET"},
      {"SET", "nokey", "v", "GET"},
      {"GET", "nokey"},
      {"SET", "k", "v5", "XX", "GET"},
      {"SET", "k", "v6", "NX", "GET"},
      {"GET", "k"},
      {"SET", "new", "n", "NX", "GET"},
      {"GET", "new"},
      {"SET", "k", "v", "nx"},
      {"SET", "k", "v7", "xx", "get"},
      {"SET", "k", "v8", "KEEPTTL"},
      {"GET", "k"},
  });
}

TEST_P(DiffStringsTest, SetOptionConflictsAreSyntaxErrors) {
  Script({
      {"SET", "k", "v", "NX", "XX"},
      {"SET", "k", "v", "XX", "NX"},
      {"SET", "k", "v", "EX", "10", "PX", "100"},
      {"SET", "k", "v", "PX", "100", "EX", "10"},
      {"SET", "k", "v", "EX", "10", "EXAT", "99999999999"},
      {"SET", "k", "v", "PXAT", "99999999999999", "PX", "10"},
      {"SET", "k", "v", "KEEPTTL", "EX", "10"},
      {"SET", "k", "v", "EX", "10", "KEEPTTL"},
      {"SET", "k", "v", "FOO"},
      {"SET", "k", "v", "EX"},
      {"SET", "k", "v", "NX", "EX"},
      {"SET", "k", "v", "GET", "GET"},
      {"SET", "k", "v", "NX", "NX"},
      {"GET", "k"},
  });
}

TEST_P(DiffStringsTest, SetInvalidExpireTimes) {
  Script({
      {"SET", "k", "v", "EX", "0"},
      {"SET", "k", "v", "EX", "-1"},
      {"SET", "k", "v", "PX", "0"},
      {"SET", "k", "v", "PX", "-100"},
      {"SET", "k", "v", "EXAT", "0"},
      {"SET", "k", "v", "PXAT", "-1"},
      {"SET", "k", "v", "EX", "abc"},
      {"SET", "k", "v", "EX", "1.5"},
      {"SET", "k", "v", "PX", ""},
      {"SET", "k", "v", "EX", "9223372036854775807"},
      {"SET", "k", "v", "EX", "9223372036854775808"},
      {"SET", "k", "v", "PX", "9223372036854775807"},
      {"SET", "k", "v", "EX", "9223372036854775"},
      {"SET", "k", "v", "EXAT", "9223372036854775807"},
      {"GET", "k"},
      // Valid ones (the key does not expire within this test).
      {"SET", "k", "v", "EX", "1000"},
      {"SET", "k", "v2", "PX", "1000000", "GET"},
      {"SET", "k", "v3", "ex", "1000", "XX"},
      {"GET", "k"},
  });
}

TEST_P(DiffStringsTest, SetnxGetsetGetdel) {
  Script({
      {"SETNX", "k", "a"},
      {"SETNX", "k", "b"},
      {"GET", "k"},
      {"SETNX", "k"},
      {"GETSET", "k", "c"},
      {"GETSET", "new", "d"},
      {"GET", "new"},
      {"GETSET", "k"},
      {"GETDEL", "k"},
      {"GETDEL", "k"},
      {"EXISTS", "k"},
      {"GETDEL"},
      {"GETDEL", "a", "b"},
      {"SETNX", "k", "a", "b"},
      {"DBSIZE"},
  });
}

TEST_P(DiffStringsTest, MgetMsetMsetnx) {
  Script({
      {"MSET", "a", "1", "b", "2", "c", "3"},
      {"MGET", "a", "b", "c", "missing", "a"},
      {"MSET", "a", "10", "a", "11"},
      {"GET", "a"},
      {"MSET", "a", "1", "b"},
      {"MSET", "a"},
      {"MSET"},
      {"MGET"},
      {"MSETNX", "x", "1", "y", "2"},
      {"MSETNX", "y", "3", "z", "4"},
      {"MGET", "x", "y", "z"},
      {"MSETNX", "p", "1", "p", "2"},
      {"GET", "p"},
      {"MSETNX", "q", "1", "r"},
      {"MSETNX"},
      {"DBSIZE"},
  });
}

TEST_P(DiffStringsTest, AppendAndStrlen) {
  Script({
      {"APPEND", "k", "hello"},
      {"APPEND", "k", " world"},
      {"GET", "k"},
      {"STRLEN", "k"},
      {"APPEND", "k", ""},
      {"APPEND", "empty", ""},
      {"EXISTS", "empty"},
      {"STRLEN", "missing"},
      {"SET", "n", "41"},
      {"APPEND", "n", "9"},
      {"INCR", "n"},
      {"APPEND", "k"},
      {"STRLEN"},
      {"STRLEN", "a", "b"},
  });
  // Growth well past any small-string/inline buffer sizes.
  for (int i = 0; i < 40; ++i)
    Same({"APPEND", "grow", std::string(size_t(1) << (i % 14), 'a' + i % 26)});
  Script({{"STRLEN", "grow"}, {"GET", "grow"}});
}

TEST_P(DiffStringsTest, GetrangeEdgeOffsets) {
  Same({"SET", "k", "Hello World"});
  const char* ranges[][2] = {
      {"0", "-1"},
      {"0", "4"},
      {"-5", "-1"},
      {"5", "2"},
      {"-1", "-5"},
      {"100", "200"},
      {"-100", "100"},
      {"0", "0"},
      {"10", "10"},
      {"11", "11"},
      {"-100", "-50"},
      {"3", "-100"},
      {"-1", "-1"},
      {"0", "9223372036854775807"},
      {"-9223372036854775808", "0"},
      {"a", "1"},
      {"1", "1.5"},
      {"0", "99999999999999999999"},
  };
  for (auto& r : ranges) {
    Same({"GETRANGE", "k", r[0], r[1]});
    Same({"GETRANGE", "missing", r[0], r[1]});
  }
  Script({{"SET", "e", ""},
          {"GETRANGE", "e", "0", "-1"},
          {"GETRANGE", "e", "-1", "0"},
          {"GETRANGE", "k", "0"},
          {"GETRANGE", "k"}});
}

TEST_P(DiffStringsTest, SetrangeGrowthAndLimits) {
  Script({
      {"SETRANGE", "k", "0", "Hello"},
      {"SETRANGE", "k", "6", "World"},
      {"GET", "k"},
      {"STRLEN", "k"},
      {"SETRANGE", "k", "1", "a"},
      {"GET", "k"},
      {"SETRANGE", "k", "20", "!"},
      {"GET", "k"},
      {"SETRANGE", "k", "3", ""},
      {"SETRANGE", "missing", "5", ""},
      {"EXISTS", "missing"},
      {"SETRANGE", "missing", "0", ""},
      {"SETRANGE", "pad", "3", "x"},
      {"GET", "pad"},
      {"SETRANGE", "k", "-1", "x"},
      {"SETRANGE", "missing", "-1", ""},
      {"SETRANGE", "k", "abc", "x"},
      {"SETRANGE", "k", "536870911", ""},
      {"SETRANGE", "k", "536870912", ""},
      {"SETRANGE", "k", "536870912", "x"},
      {"SETRANGE", "k", "536870911", "xx"},
      {"SETRANGE", "missing", "536870912", "x"},
      {"SETRANGE", "k", "9223372036854775807", "x"},
      {"EXISTS", "missing"},
      {"GET", "k"},
      {"SETRANGE", "k", "1"},
  });
}

INSTANTIATE_TEST_SUITE_P(Threads, DiffStringsTest, ::testing::Values(1, 2, 3), ThreadsName);

}  // namespace
}  // namespace rc::it
