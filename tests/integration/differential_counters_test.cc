// INCR, DECR, INCRBY, DECRBY and INCRBYFLOAT against redis-server: integer parsing,
// overflow at the int64 limits, and the float formats INCRBYFLOAT replies with.

#include <string>

#include "tests/integration/fixtures.h"

namespace rc::it {
namespace {

class DiffCountersTest : public DiffTest {};

TEST_P(DiffCountersTest, IncrDecrBasics) {
  Script({
      {"INCR", "n"},
      {"INCR", "n"},
      {"DECR", "n"},
      {"DECR", "fresh"},
      {"INCRBY", "n", "10"},
      {"DECRBY", "n", "3"},
      {"INCRBY", "n", "-20"},
      {"DECRBY", "n", "-5"},
      {"GET", "n"},
      {"INCRBY", "n", "0"},
      {"TYPE", "n"},
      {"INCR"},
      {"INCR", "a", "b"},
      {"INCRBY", "n"},
      {"DECRBY", "n", "1", "2"},
      {"DECR"},
  });
}

TEST_P(DiffCountersTest, StoredValuesThatAreNotIntegers) {
  const char* values[] = {"abc",
                          "",
                          " 1",
                          "1 ",
                          "01",
                          "+1",
                          "-0",
                          "1.0",
                          "0x10",
                          "1e3",
                          "-",
                          "00",
                          "0",
                          "-1",
                          "9223372036854775807",
                          "-9223372036854775808",
                          "9223372036854775808",
                          "-9223372036854775809",
                          "99999999999999999999"};
  for (const char* v : values) {
    Script({{"SET", "v", v},
            {"INCR", "v"},
            {"GET", "v"},
            {"SET", "v", v},
            {"DECR", "v"},
            {"SET", "v", v},
            {"INCRBY", "v", "1"},
            {"SET", "v", v},
            {"DECRBY", "v", "1"}});
  }
}

TEST_P(DiffCountersTest, IncrementArgumentsThatAreNotIntegers) {
  Same({"SET", "n", "5"});
  const char* incs[] = {
      "abc", "", "1.5", " 1", "01", "+1", "9223372036854775808", "-9223372036854775809", "1e2"};
  for (const char* inc : incs) {
    Script({{"INCRBY", "n", inc}, {"DECRBY", "n", inc}, {"INCRBY", "fresh", inc}});
  }
  Same({"GET", "n"});
  Same({"EXISTS", "fresh"});
}

TEST_P(DiffCountersTest, OverflowNearInt64Limits) {
  Script({
      {"SET", "n", "9223372036854775806"},
      {"INCR", "n"},
      {"INCR", "n"},
      {"GET", "n"},
      {"INCRBY", "n", "0"},
      {"DECRBY", "n", "-1"},
      {"SET", "n", "-9223372036854775807"},
      {"DECR", "n"},
      {"DECR", "n"},
      {"GET", "n"},
      {"INCRBY", "n", "-1"},
      {"SET", "n", "1"},
      {"INCRBY", "n", "9223372036854775807"},
      {"INCRBY", "n", "9223372036854775806"},
      {"GET", "n"},
      {"SET", "n", "-2"},
      {"INCRBY", "n", "-9223372036854775808"},
      {"INCRBY", "n", "-9223372036854775807"},
      {"DECRBY", "n", "-9223372036854775808"},
      {"DECRBY", "zero", "-9223372036854775808"},
      {"DECRBY", "n", "9223372036854775807"},
      {"SET", "n", "0"},
      {"INCRBY", "n", "-9223372036854775808"},
      {"GET", "n"},
      {"DECRBY", "fresh", "9223372036854775807"},
      {"DECR", "fresh"},
      {"DECR", "fresh"},
      {"GET", "fresh"},
  });
}

TEST_P(DiffCountersTest, IncrbyfloatFormats) {
  Script({
      {"INCRBYFLOAT", "f", "10.5"},
      {"INCRBYFLOAT", "f", "0.1"},
      {"INCRBYFLOAT", "f", "-5"},
      {"INCRBYFLOAT", "f", "5.0e3"},
      {"INCRBYFLOAT", "f", "-5.6e3"},
      {"INCRBYFLOAT", "g", "0.1"},
      {"INCRBYFLOAT", "g", "0.2"},
      {"INCRBYFLOAT", "h", "1e17"},
      {"INCRBYFLOAT", "h", "1"},
      {"INCRBYFLOAT", "i", "3"},
      {"INCRBYFLOAT", "i", "1.000000000000000000001"},
      {"INCRBYFLOAT", "j", "-0.0"},
      {"INCRBYFLOAT", "j", "1.23456789012345678901234"},
      {"INCRBYFLOAT", "s", "  1.5"},
      {"INCRBYFLOAT", "s", "1.5  "},
      {"INCRBYFLOAT", "s", ".5"},
      {"INCRBYFLOAT", "s", "5."},
      {"INCRBYFLOAT", "s", "+2"},
      {"INCRBYFLOAT", "t", "0x10"},
      {"INCRBYFLOAT", "u", "1e-20"},
      {"INCRBYFLOAT", "u", "123456789012345678"},
      {"INCRBYFLOAT", "v", "1e308"},
      {"INCRBYFLOAT", "v", "1e308"},
      {"GET", "v"},
      {"SET", "n", "7"},
      {"INCRBYFLOAT", "n", "0.5"},
      {"INCR", "n"},
      {"SET", "n", "1.5e2"},
      {"INCRBYFLOAT", "n", "1"},
      {"SET", "n", " 2"},
      {"INCRBYFLOAT", "n", "1"},
  });
}

// Fresh key + increment, so the reply is Redis's formatting of the parsed long double.
TEST_P(DiffCountersTest, IncrbyfloatFormatSweep) {
  const char* incs[] = {"0",
                        "-0",
                        "1",
                        "-1",
                        "0.5",
                        "1.5e-5",
                        "0.0001",
                        "100",
                        "1e20",
                        "1.5e20",
                        "1e21",
                        "-1e21",
                        "1e-300",
                        "3.0000000000000001",
                        "0.1",
                        "0.30000000000000004",
                        "1e16",
                        "12345678901234567890",
                        "1.7976931348623157e308",
                        "4.9e-324",
                        "2.5E3",
                        "1_000",
                        "0b1",
                        "1e",
                        "e1",
                        "."};
  for (const char* inc : incs) {
    Same({"INCRBYFLOAT", inc, inc});
    Same({"INCRBYFLOAT", inc, "0.1"});
  }
  Same({"INCRBYFLOAT", "acc", "0.1"});
  for (int i = 0; i < 30; ++i) Same({"INCRBYFLOAT", "acc", "0.7"});
  for (int i = 0; i < 30; ++i) Same({"INCRBYFLOAT", "acc", "-0.3"});
  Same({"SET", "i", "3"});
  for (int i = 0; i < 10; ++i) Same({"INCRBYFLOAT", "i", "2.5e2"});
}

TEST_P(DiffCountersTest, IncrbyfloatErrors) {
  Script({
      {"SET", "x", "abc"},
      {"INCRBYFLOAT", "x", "1"},
      {"INCRBYFLOAT", "y", "abc"},
      {"INCRBYFLOAT", "y", ""},
      {"INCRBYFLOAT", "y", "1e400"},
      {"INCRBYFLOAT", "y", "-1e400"},
      {"INCRBYFLOAT", "y", "inf"},
      {"INCRBYFLOAT", "y", "-inf"},
      {"INCRBYFLOAT", "y", "nan"},
      {"INCRBYFLOAT", "y", "1.5x"},
      {"INCRBYFLOAT", "y"},
      {"INCRBYFLOAT", "y", "1", "2"},
      {"SET", "z", "1e4000"},
      {"INCRBYFLOAT", "z", "1"},
      {"SET", "z", "inf"},
      {"INCRBYFLOAT", "z", "1"},
      {"EXISTS", "y"},
      {"GET", "z"},
  });
}

INSTANTIATE_TEST_SUITE_P(Threads, DiffCountersTest, ::testing::Values(1, 2, 3), ThreadsName);

}  // namespace
}  // namespace rc::it
