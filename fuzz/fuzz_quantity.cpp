// libFuzzer target: the distribution parser (docs/reliability.md). JSON text -> quantity at
// path "x". Every input must parse or be refused with an input_error. A quantity that parses
// must keep the contract of docs/distributions.md: its quantile function is non-decreasing, every value
// it returns lies in its support, the batch and scalar paths agree, its mean is a number,
// and saving and parsing again gives the same JSON.
#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "fuzz_support.hpp"
#include "trnmodel/dist/quantity_json.hpp"
#include "trnmodel/scenario/scenario.hpp"

using namespace trnmodel;

namespace {

void require(bool ok, const char* what, const std::string& text) { fuzz::require(ok, "fuzz_quantity", what, text); }

// Uniforms as the engine draws them (in (0, 1)), dense in both tails, in increasing order.
std::vector<double> probe_uniforms() {
  std::vector<double> u;
  for (int k = 60; k >= 2; k -= 2) u.push_back(std::ldexp(1.0, -k));
  for (int i = 1; i < 64; ++i) u.push_back(i / 64.0);
  for (int k = 2; k <= 53; k += 3) u.push_back(1 - std::ldexp(1.0, -k));
  std::sort(u.begin(), u.end());
  return u;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  static const std::vector<double> u = probe_uniforms();
  const std::string text(reinterpret_cast<const char*>(data), size);
  try {
    const quantity q = quantity_from_json(scenario::parse_strict(text), "x");
    require(quantity_to_json(quantity_from_json(quantity_to_json(q), "x")) == quantity_to_json(q),
            "save and parse again changed the quantity", text);
    if (q.is_unknown()) return 0;
    const auto [lo, hi] = q.support();
    require(lo <= hi, "support is empty", text);
    require(!std::isnan(q.mean()), "mean is NaN", text);
    std::vector<double> batch(u.size());
    q.ppf(u.data(), batch.data(), u.size());
    double previous = -dist::infinity;
    for (std::size_t i = 0; i < u.size(); ++i) {
      const double x = q.ppf(u[i]);
      require(x == batch[i] || (std::isnan(x) && std::isnan(batch[i])), "batch and scalar ppf differ", text);
      require(x >= lo && x <= hi, "ppf left the support", text);
      require(x >= previous, "ppf decreased", text);
      previous = x;
    }
  } catch (const input_error&) {
    // A clear refusal is a correct answer.
  }
  return 0;
}
