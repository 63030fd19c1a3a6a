#pragma once
// Seeded random numbers and Zipf ranks for the load tools (eviction_sim, churn): two runs
// with one seed draw the same trace.

#include <cmath>
#include <cstdint>

namespace rc::bench {

inline uint64_t SplitMix(uint64_t x) {
  x += 0x9e3779b97f4a7c15ULL;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
  return x ^ (x >> 31);
}

// Seeds start their streams at hashed points: with the state at the seed itself, seeds
// s and s+1 drew the same numbers shifted by one (a measured trace replayed its warm-up).
class Rng {
 public:
  explicit Rng(uint64_t seed) : s_(SplitMix(seed)) {}
  uint64_t Next() { return SplitMix(s_++); }
  double Uniform() { return double(Next() >> 11) * 0x1.0p-53; }
  uint32_t Below(uint32_t n) { return uint32_t((uint64_t(uint32_t(Next())) * n) >> 32); }

 private:
  uint64_t s_;
};

// Zipf ranks 1..n by rejection-inversion (Hörmann and Derflinger), O(1) per draw.
class Zipf {
 public:
  Zipf(uint64_t n, double s) : n_(double(n)), s_(s) {
    h_x1_ = H(1.5) - 1.0;
    h_n_ = H(n_ + 0.5);
    t_ = 2.0 - HInv(H(2.5) - std::exp(-s_ * std::log(2.0)));
  }
  uint64_t Draw(Rng& rng) const {
    for (;;) {
      double u = h_n_ + rng.Uniform() * (h_x1_ - h_n_);
      double x = HInv(u);
      double k = std::floor(x + 0.5);
      if (k < 1) k = 1;
      if (k > n_) k = n_;
      if (k - x <= t_ || u >= H(k + 0.5) - std::exp(-s_ * std::log(k))) return uint64_t(k);
    }
  }

 private:
  double H(double x) const { return Helper2((1.0 - s_) * std::log(x)) * std::log(x); }
  double HInv(double x) const {
    double t = x * (1.0 - s_);
    if (t < -1.0) t = -1.0;
    return std::exp(Helper1(t) * x);
  }
  static double Helper1(double x) {
    return std::abs(x) > 1e-8 ? std::log1p(x) / x : 1.0 - x * (0.5 - x * (1.0 / 3.0 - 0.25 * x));
  }
  static double Helper2(double x) {
    return std::abs(x) > 1e-8 ? std::expm1(x) / x
                              : 1.0 + x * 0.5 * (1.0 + x / 3.0 * (1.0 + 0.25 * x));
  }
  double n_, s_, h_x1_, h_n_, t_;
};

}  // namespace rc::bench
