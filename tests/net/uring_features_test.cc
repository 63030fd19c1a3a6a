// Which kernels the io_uring engine is chosen on (the server falls back to epoll below).

#include <gtest/gtest.h>

#include "net/uring_engine.h"

namespace rc::net {
namespace {

TEST(KernelHasUringFeatures, SixPointZeroAndLater) {
  EXPECT_TRUE(KernelHasUringFeatures("6.0.0"));
  EXPECT_TRUE(KernelHasUringFeatures("6.1.0-13-amd64"));
  EXPECT_TRUE(KernelHasUringFeatures("10.2.1"));
}

TEST(KernelHasUringFeatures, OlderKernelsLackMultishotRecv) {
  EXPECT_FALSE(KernelHasUringFeatures("5.19.0-50-generic"));  // rings, no multishot recv
  EXPECT_FALSE(KernelHasUringFeatures("5.15.0-91-generic"));  // Ubuntu 22.04's
  EXPECT_FALSE(KernelHasUringFeatures("4.19.0"));
}

TEST(KernelHasUringFeatures, UnparseableReleasesAreLeftToRingSetup) {
  EXPECT_TRUE(KernelHasUringFeatures(""));
  EXPECT_TRUE(KernelHasUringFeatures("custom"));
  EXPECT_TRUE(KernelHasUringFeatures("6"));
}

}  // namespace
}  // namespace rc::net
