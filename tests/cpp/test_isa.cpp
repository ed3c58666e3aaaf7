// Every instruction-set path of the lane kernels gives the same bits: the uniform columns
// (against uniform() itself), and the quantile columns of every family of the hot loop
// (against the scalar ppf, and across paths). On this machine's paths only: a machine without
// AVX-512 tests what it has.
#include <cmath>
#include <cstdint>
#include <cstring>
#include <vector>

#include "catch.hpp"
#include "trnmodel/dist/quantity.hpp"
#include "trnmodel/random/isa.hpp"
#include "trnmodel/random/uniform_column.hpp"
#include "same_bits.hpp"

using namespace trnmodel;

// The file's own namespace: its helpers stay out of the other test files (the tests are
// also compiled as unity translation units).
namespace test_isa {

namespace {


// Restores the path cap when a test ends.
struct isa_cap {
  explicit isa_cap(isa i) : previous(set_isa_limit(i)) {}
  ~isa_cap() { set_isa_limit(previous); }
  isa previous;
};

// Uniforms with both ends of (0, 1) represented: a column, then the extreme cells.
std::vector<double> test_uniforms() {
  std::vector<double> u(4099);
  uniform_column(7, 3, 0, 0, 1, 4096, u.data());
  u[4096] = std::ldexp(1.0, -53);
  u[4097] = 1 - std::ldexp(1.0, -53);
  u[4098] = 0.5;
  for (const double t : {1e-300, 1e-30, 1e-11, 0.02425, 0.075, 0.0750000001, 0.925, 1 - 1e-11}) u.push_back(t);
  return u;
}

}  // namespace

TEST_CASE("the machine's paths are listed, baseline first, and the cap selects one", "[random][isa]") {
  const auto paths = available_isas();
  REQUIRE(!paths.empty());
  CHECK(paths.front() == isa::sse2);
  for (const isa i : paths) {
    const isa_cap cap(i);
    CHECK(active_isa() == i);
  }
  WARN("paths on this machine: " << paths.size() << " (best " << isa_name(paths.back()) << ")");
}

TEST_CASE("uniform columns are uniform() bit for bit on every path", "[random][isa]") {
  for (const isa i : available_isas()) {
    const isa_cap cap(i);
    for (const std::uint64_t first : {0ull, 1ull, 4096ull, (1ull << 33) - 3})
      for (const std::uint64_t stride : {1ull, 2ull, 3ull})
        for (const std::size_t n : {0ul, 1ul, 2ul, 3ul, 31ul, 32ul, 33ul, 1000ul}) {
          std::vector<double> x(n + 1, -1);
          uniform_column(0x123456789abcdefull, 77, 5, first, stride, n, x.data());
          INFO(isa_name(i) << " first " << first << " stride " << stride << " n " << n);
          bool all = true;
          for (std::size_t k = 0; k < n; ++k)
            all = all && test::same_bits(x[k], detail::uniform(0x123456789abcdefull, first + k * stride, 77, 5));
          CHECK(all);
          CHECK(x[n] == -1);
        }
  }
}

TEST_CASE("quantile columns are the scalar ppf bit for bit on every path", "[dist][isa]") {
  const std::vector<double> u = test_uniforms();
  const std::vector<quantity> families{make_normal(10, 3),     make_normal(1, 2, 0.5, 4), make_lognormal(0.3, 0.8),
                                       make_lognormal(-20, 3), make_beta(0.5, 0.5),       make_beta(2, 5, 1, 3),
                                       make_pert(1, 2, 6),     make_gamma(0.3, 2),        make_gamma(4, 0.5),
                                       make_uniform(2, 3)};
  std::vector<std::vector<double>> first_path;
  for (const isa i : available_isas()) {
    const isa_cap cap(i);
    for (std::size_t f = 0; f < families.size(); ++f) {
      std::vector<double> x(u.size());
      families[f].ppf(u.data(), x.data(), u.size());
      INFO(isa_name(i) << " " << families[f].family() << " #" << f);
      std::size_t differ = 0;
      for (std::size_t k = 0; k < u.size(); ++k) differ += test::same_bits(x[k], families[f].ppf(u[k])) ? 0 : 1;
      CHECK(differ == 0);
      if (i == isa::sse2) {
        first_path.push_back(x);
      } else {
        differ = 0;
        for (std::size_t k = 0; k < u.size(); ++k) differ += test::same_bits(x[k], first_path[f][k]) ? 0 : 1;
        CHECK(differ == 0);
      }
      // In place, as the engine calls it.
      std::vector<double> y = u;
      families[f].ppf(y.data(), y.data(), y.size());
      CHECK(std::memcmp(x.data(), y.data(), x.size() * sizeof(double)) == 0);
    }
  }
}

}  // namespace test_isa
