#pragma once
// The byte encoding of partial statistics (run_partial, partial.hpp): fixed-width
// little-endian integers and IEEE-754 doubles by their bits, so a partial read back on any
// machine holds exactly the numbers that were written. A reader refuses truncated input and
// says what it was reading.
#include <cstdint>
#include <cstring>
#include <string>
#include <string_view>
#include <utility>

#include "trnmodel/check.hpp"

namespace trnmodel::detail {

class byte_writer {
 public:
  void u64(std::uint64_t x) {
    for (int k = 0; k < 8; ++k) bytes_.push_back(static_cast<char>((x >> (8 * k)) & 0xFFu));
  }
  void i64(std::int64_t x) { u64(static_cast<std::uint64_t>(x)); }
  void f64(double x) {
    std::uint64_t bits = 0;
    std::memcpy(&bits, &x, sizeof bits);
    u64(bits);
  }
  void text(std::string_view s) {
    u64(s.size());
    bytes_.append(s.data(), s.size());
  }
  std::string take() { return std::move(bytes_); }

 private:
  std::string bytes_;
};

class byte_reader {
 public:
  explicit byte_reader(std::string_view bytes) : bytes_(bytes) {}

  std::uint64_t u64(const char* what) {
    need(8, what);
    std::uint64_t x = 0;
    for (std::size_t k = 0; k < 8; ++k) x |= std::uint64_t{static_cast<unsigned char>(bytes_[at_ + k])} << (8 * k);
    at_ += 8;
    return x;
  }
  std::int64_t i64(const char* what) { return static_cast<std::int64_t>(u64(what)); }
  double f64(const char* what) {
    const std::uint64_t bits = u64(what);
    double x = 0;
    std::memcpy(&x, &bits, sizeof x);
    return x;
  }
  std::string text(const char* what) {
    const std::uint64_t n = u64(what);
    need(n, what);
    std::string s(bytes_.substr(at_, static_cast<std::size_t>(n)));
    at_ += static_cast<std::size_t>(n);
    return s;
  }
  // A count of items of at least `item_bytes` each, checked against what is left, so a corrupt
  // count cannot make the caller allocate more than the input could hold.
  std::uint64_t count(const char* what, std::uint64_t item_bytes) {
    const std::uint64_t n = u64(what);
    if (item_bytes > 0 && n > (bytes_.size() - at_) / item_bytes)
      detail::fail("partial", std::string("truncated or corrupt bytes: ") + what + " says " + std::to_string(n) +
                                  " items, " + std::to_string(bytes_.size() - at_) + " bytes are left");
    return n;
  }
  std::size_t remaining() const { return bytes_.size() - at_; }
  bool done() const { return at_ == bytes_.size(); }

 private:
  void need(std::uint64_t n, const char* what) const {
    if (n > bytes_.size() - at_)
      detail::fail("partial", std::string("truncated bytes: ") + what + " needs " + std::to_string(n) + " bytes, " +
                                  std::to_string(bytes_.size() - at_) + " are left");
  }

  std::string_view bytes_;
  std::size_t at_ = 0;
};

}  // namespace trnmodel::detail
