#pragma once
// The kept array's pages and the kernel: fresh memory about to be written, faulted in by one
// system call instead of a page fault per page, written pages given back on several threads
// (release_pages), and the pages of an array kept for reuse marked as lazily freeable
// (lazily_free_pages, array_cache.hpp). A run's kept array is allocated untouched (hundreds of MB for 10^6 samples), so every
// 4 KiB page of it traps into the kernel on its first write; on a virtual machine each trap is
// also an exit to the hypervisor. Linux's madvise(MADV_POPULATE_WRITE) (kernel 5.14 and later)
// maps a whole range in one call: on the 2-core development machine, writing a block's 40
// column segments of 32 KiB each into fresh pages took 184 ns per sample with the faults and
// 125 with the range populated first (docs/benchmarks.md, "The kept copy's page faults"). The
// pages are zeroed either way; only the traps go. Where the call is unknown (another system, an
// older kernel: EINVAL) nothing happens and the writes fault as before: the values are the same.
#include <cstddef>
#include <cstdint>

#if defined(__linux__)
#include <sys/mman.h>
#endif

namespace trnmodel::detail {

/// Asks the system to map the pages of [first, first + bytes) for writing now. Only a hint:
/// nothing about the memory's contents changes, and failure is ignored.
inline void prefault_for_writing(void* first, std::size_t bytes) noexcept {
#if defined(__linux__)
#ifndef MADV_POPULATE_WRITE
  constexpr int MADV_POPULATE_WRITE = 23;  // linux/mman.h; older C libraries do not name it
#endif
  if (bytes == 0) return;
  constexpr std::uintptr_t page_bytes = 4096;  // the smallest page on x86-64 and arm64
  const auto begin = reinterpret_cast<std::uintptr_t>(first) & ~(page_bytes - 1);
  const auto end = reinterpret_cast<std::uintptr_t>(first) + bytes;
  (void)::madvise(reinterpret_cast<void*>(begin), end - begin, MADV_POPULATE_WRITE);
#else
  (void)first;
  (void)bytes;
#endif
}

#if defined(__linux__)
/// madvise(advice) on the whole pages inside [first, first + bytes), the pages wholly inside the
/// range only, so that an allocator's bookkeeping beside it is never touched.
inline void advise_whole_pages(void* first, std::size_t bytes, int advice) noexcept {
  constexpr std::uintptr_t page_bytes = 4096;
  const auto begin = (reinterpret_cast<std::uintptr_t>(first) + page_bytes - 1) & ~(page_bytes - 1);
  const auto end = (reinterpret_cast<std::uintptr_t>(first) + bytes) & ~(page_bytes - 1);
  if (end > begin) (void)::madvise(reinterpret_cast<void*>(begin), end - begin, advice);
}
#endif

/// Gives the whole pages inside [first, first + bytes) back to the system (their contents are
/// gone: they read as zero if touched again). A large kept array's pages are released this way
/// on several threads before it is freed: the kernel frees a range's pages under a shared lock,
/// so threads working on separate ranges overlap, where the free's own unmapping is one thread's
/// work (832 MB of written pages: 60 ms on one thread, 40 on two; docs/benchmarks.md).
inline void release_pages(void* first, std::size_t bytes) noexcept {
#if defined(__linux__)
  advise_whole_pages(first, bytes, MADV_DONTNEED);
#else
  (void)first;
  (void)bytes;
#endif
}

/// Tells the system that the whole pages inside [first, first + bytes) may be taken back when
/// memory runs short (MADV_FREE, Linux 4.5 and later). Until it does, they stay mapped with
/// their contents, and a write keeps them; once it has, they read as zero and fault on first
/// use like fresh memory. Only a hint: where unknown, nothing happens.
inline void lazily_free_pages(void* first, std::size_t bytes) noexcept {
#if defined(__linux__)
#ifndef MADV_FREE
  constexpr int MADV_FREE = 8;  // linux/mman.h; older C libraries do not name it
#endif
  advise_whole_pages(first, bytes, MADV_FREE);
#else
  (void)first;
  (void)bytes;
#endif
}

}  // namespace trnmodel::detail
