#include "timers/idle_list.h"

#include <vector>

#include "gtest/gtest.h"

namespace rc {
namespace {

TEST(IdleList, OrderedByLastTouch) {
  IdleList list;
  std::vector<IdleHook> hooks(5);
  for (int i = 0; i < 5; ++i) list.Touch(&hooks[i], 100 + i);
  EXPECT_EQ(list.Oldest(), &hooks[0]);
  list.Touch(&hooks[0], 200);
  EXPECT_EQ(list.Oldest(), &hooks[1]);
  list.Remove(&hooks[1]);
  list.Remove(&hooks[1]);  // removing twice is harmless
  EXPECT_EQ(list.Oldest(), &hooks[2]);
  // Walk: 2, 3, 4, 0 with non-decreasing activity.
  std::vector<IdleHook*> order;
  for (IdleHook* h = list.Oldest(); h != nullptr; h = h->next) order.push_back(h);
  EXPECT_EQ(order, (std::vector<IdleHook*>{&hooks[2], &hooks[3], &hooks[4], &hooks[0]}));
  for (auto* h : order) list.Remove(h);
  EXPECT_TRUE(list.empty());
}

}  // namespace
}  // namespace rc
