#pragma once
// The record framing of a TensorBoard event file (TFRecord; docs/importing.md, "TensorBoard"):
// each record is a little-endian uint64 length, the masked CRC-32C of those 8 bytes, the data,
// and the masked CRC-32C of the data. TensorBoard's own loader stops quietly at a record it
// cannot read, which would end a log early without a word; this pass checks every record's
// framing and checksums first, so a truncated or corrupt file is an error naming the record and
// its byte offset. The events themselves are decoded by TensorBoard's EventFileLoader (Python).
#include <boost/crc.hpp>
#include <cstdint>
#include <string>
#include <vector>

#include "trnmodel/check.hpp"

namespace trnmodel::calibrate {

/// Where one record's data lies in an event file. A plain value.
struct tfrecord_span {
  std::size_t offset = 0;  ///< byte offset of the record's data in the file
  std::size_t length = 0;  ///< bytes of data
};

}  // namespace trnmodel::calibrate

namespace trnmodel::detail {

// TFRecord's masked CRC-32C (Castagnoli): the CRC rotated right by 15 bits plus a constant, so
// that a CRC of data that itself holds CRCs is not trivially related to them.
inline std::uint32_t masked_crc32c(const char* data, std::size_t n) {
  boost::crc_optimal<32, 0x1EDC6F41, 0xFFFFFFFF, 0xFFFFFFFF, true, true> crc;
  crc.process_bytes(data, n);
  const std::uint32_t c = crc.checksum();
  return ((c >> 15) | (c << 17)) + 0xa282ead8u;
}

inline std::uint64_t little_endian(const std::string& bytes, std::size_t at, int width) {
  std::uint64_t x = 0;
  for (int i = width; i-- > 0;) x = (x << 8) | static_cast<unsigned char>(bytes[at + static_cast<std::size_t>(i)]);
  return x;
}

}  // namespace trnmodel::detail

namespace trnmodel::calibrate {

/// The records of an event file's bytes, each checked (length, framing, both CRCs); `source`
/// names the file in errors. An empty file has no records.
inline std::vector<tfrecord_span> tfrecord_spans(const std::string& bytes, const std::string& source) {
  std::vector<tfrecord_span> spans;
  std::size_t at = 0;
  while (at < bytes.size()) {
    const std::string where = source + ": record " + std::to_string(spans.size()) + " at byte " + std::to_string(at);
    if (bytes.size() - at < 12)
      detail::fail(where, "truncated: " + std::to_string(bytes.size() - at) +
                              " bytes left, fewer than a record's 12-byte header (the writer stopped mid-record)");
    const std::uint64_t length = detail::little_endian(bytes, at, 8);
    if (detail::masked_crc32c(bytes.data() + at, 8) != detail::little_endian(bytes, at + 8, 4))
      detail::fail(where, "corrupt: the length's checksum does not match (not an event file, or damaged)");
    if (length > bytes.size() - at - 12 || bytes.size() - at - 12 - length < 4)
      detail::fail(where, "truncated: the record says " + std::to_string(length) + " bytes of data and its checksum, " +
                              std::to_string(bytes.size() - at - 12) + " bytes are left (the writer stopped mid-record)");
    const std::size_t data = at + 12;
    if (detail::masked_crc32c(bytes.data() + data, length) != detail::little_endian(bytes, data + length, 4))
      detail::fail(where, "corrupt: the data's checksum does not match");
    spans.push_back({data, static_cast<std::size_t>(length)});
    at = data + length + 4;
  }
  return spans;
}

}  // namespace trnmodel::calibrate
