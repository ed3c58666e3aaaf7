#pragma once
// The process's cache of freed arrays (array_cache.hpp) emptied and set to a capacity for one
// test, and put back as it was after: a test of fresh memory sets 0, a test of reuse its own.
#include <cstddef>

#include "trnmodel/montecarlo/array_cache.hpp"

namespace test {
struct array_cache_capacity {
  std::size_t saved = trnmodel::detail::array_cache::instance().capacity();
  explicit array_cache_capacity(std::size_t capacity_bytes) {
    trnmodel::detail::array_cache::instance().clear();
    trnmodel::detail::array_cache::instance().set_capacity(capacity_bytes);
  }
  ~array_cache_capacity() {
    trnmodel::detail::array_cache::instance().clear();
    trnmodel::detail::array_cache::instance().set_capacity(saved);
  }
  array_cache_capacity(const array_cache_capacity&) = delete;
  array_cache_capacity& operator=(const array_cache_capacity&) = delete;
};
}  // namespace test
