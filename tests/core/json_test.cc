#include "core/json.h"

#include <gtest/gtest.h>

namespace rc {
namespace {

using Kind = JsonValue::Kind;

TEST(Json, ParsesObjectsArraysAndScalars) {
  JsonValue v;
  std::string error;
  ASSERT_TRUE(
      ParseJson(R"( {"a": [1, -2, "x\"y\u0041"], "b": {"c": true, "d": null}} )", &v, &error))
      << error;
  ASSERT_TRUE(v.is(Kind::kObject));
  const JsonValue* a = v.Find("a");
  ASSERT_NE(a, nullptr);
  ASSERT_EQ(a->array.size(), 3u);
  EXPECT_EQ(a->array[0].integer, 1);
  EXPECT_EQ(a->array[1].integer, -2);
  EXPECT_EQ(a->array[2].string, "x\"yA");
  EXPECT_TRUE(v.Find("b")->Find("c")->boolean);
  EXPECT_TRUE(v.Find("b")->Find("d")->is(Kind::kNull));
  EXPECT_EQ(v.Find("missing"), nullptr);
}

TEST(Json, RefusesWhatConfigurationsNeverHold) {
  JsonValue v;
  std::string error;
  for (const char* bad : {"", "{", "[1,]", "{\"a\" 1}", "1.5", "1e3", "\"\\u00e9\"", "[1] 2",
                          "{\"a\": 1, \"a\": 2}", "99999999999999999999", "tru"}) {
    EXPECT_FALSE(ParseJson(bad, &v, &error)) << bad;
    EXPECT_FALSE(error.empty()) << bad;
  }
  EXPECT_FALSE(ParseJson("{\n\"a\": [1,\n 2,,]}", &v, &error));
  EXPECT_EQ(error.rfind("line 3:", 0), 0u) << error;
  std::string deep(100, '[');
  EXPECT_FALSE(ParseJson(deep, &v, &error));
}

}  // namespace
}  // namespace rc
