#pragma once
// α–β (latency–bandwidth, "Hockney") cost model of the collectives a training step uses
// (docs/throughput.md): the time of one collective on `ranks` participants is a number of sequential
// message steps times α plus the bytes the busiest rank must push through its link divided
// by B. Namespace trnmodel::collectives.
//
// Symbols and conventions shared by every function below:
//   p  = ranks                   participants (a whole number ≥ 1);
//   n  = bytes                   the full buffer: the input = output of an all-reduce, the
//                                input of a reduce-scatter (each rank ends with n/p), the
//                                output of an all-gather (each rank starts with n/p). This
//                                is the "size" S that NCCL-tests print (doc/PERFORMANCE.md);
//   α  = latency_s               seconds per message step (start-up, hop and sync costs);
//   B  = bandwidth_bytes_per_s   per rank and per direction: a rank can send B and receive B
//                                at the same time (full duplex), as NVLink "per direction"
//                                and EFA figures are quoted (docs/profiles.md).
// The computation cost of the reduction (Thakur et al.'s γ term) is left out: on
// accelerators the add runs at memory bandwidth and overlaps with the transfer.
// A group of one rank costs 0 seconds: nothing needs to move.
//
// Nominal vs achieved: B should be the achieved bandwidth, not the datasheet link rate;
// 8 × A100 reached an all-reduce busbw of 230.8 of 300 GB/s (≈ 77%, NVIDIA/nccl issue 527;
// docs/profiles.md). link_level carries a nominal bandwidth and an efficiency for that.
//
// Checking: a link is checked once, when it is built (checked_link, which names the field in
// errors); each collective's formula is written once, over a checked `link`, and does no
// checks of its own, so the step-time model can call it per Monte Carlo sample without
// building a string. The overloads taking plain numbers or a link_level are the checked front
// doors (the Python tm.collectives functions): they check ranks and bytes, build the link and
// call the formula.
//
// Sources:
//   [TRG05] Thakur, Rabenseifner & Gropp, "Optimization of Collective Communication
//     Operations in MPICH", Int. J. High Perform. Comput. Appl. 19(1):49-66, 2005.
//   [PY09]  Patarasuk & Yuan, "Bandwidth optimal all-reduce algorithms for clusters of
//     workstations", J. Parallel Distrib. Comput. 69(2):117-124, 2009.
//   [NCCLT] NVIDIA nccl-tests, doc/PERFORMANCE.md (algbw, busbw).
#include <cmath>
#include <string>

#include "trnmodel/check.hpp"

namespace trnmodel::collectives {

/// One level of interconnect (e.g. NeuronLink/NVLink inside an instance, EFA across
/// instances), as given. The model uses bandwidth × efficiency, so a datasheet figure and a
/// measured fraction (e.g. 230.8/300 from nccl issue 527) can be kept apart and both cited.
struct link_level {
  double latency_s = 0;  ///< α, seconds per message step
  double bandwidth_bytes_per_s = 0;  ///< nominal, per rank per direction
  double efficiency = 1;  ///< achieved / nominal, in (0, 1]
};

class checked_link;
inline checked_link check_link(const char* prefix, double latency_s, double bandwidth_bytes_per_s);
inline checked_link check_link(const char* prefix, const link_level& level);

/// A link whose figures passed the checks: α finite and ≥ 0, the effective (achieved)
/// bandwidth finite and > 0. Only check_link makes one.
class checked_link {
 public:
  /// α, seconds per message step (finite, >= 0).
  double latency_s() const { return latency_s_; }
  /// The effective bandwidth (a link_level's nominal × efficiency), bytes/s per rank and direction.
  double bandwidth_bytes_per_s() const { return bandwidth_bytes_per_s_; }

 private:
  checked_link(double latency_s, double bandwidth_bytes_per_s)
      : latency_s_(latency_s), bandwidth_bytes_per_s_(bandwidth_bytes_per_s) {}
  friend checked_link check_link(const char*, double, double);
  friend checked_link check_link(const char*, const link_level&);
  double latency_s_, bandwidth_bytes_per_s_;
};

/// Checks α and B (paths "<prefix>latency_s", "<prefix>bandwidth_bytes_per_s"). The valid case
/// returns before any path string is built.
inline checked_link check_link(const char* prefix, double latency_s, double bandwidth_bytes_per_s) {
  const bool valid =
      latency_s >= 0 && std::isfinite(latency_s) && bandwidth_bytes_per_s > 0 && std::isfinite(bandwidth_bytes_per_s);
  if (!valid) {
    trnmodel::detail::check_nonnegative(std::string(prefix) + "latency_s", latency_s);
    trnmodel::detail::check_positive(std::string(prefix) + "bandwidth_bytes_per_s", bandwidth_bytes_per_s);
  }
  return checked_link(latency_s, bandwidth_bytes_per_s);
}

/// Checks a link_level (paths "<prefix>latency_s", ..., "<prefix>efficiency"); the link's
/// bandwidth is nominal × efficiency. Efficiency above 1 is rejected: it is most likely a
/// percentage typed as 77 instead of 0.77; to model in-network reduction (NVLS, SHARP), raise
/// the bandwidth instead.
inline checked_link check_link(const char* prefix, const link_level& level) {
  check_link(prefix, level.latency_s, level.bandwidth_bytes_per_s);
  if (!(level.efficiency > 0 && level.efficiency <= 1)) {
    trnmodel::detail::check_finite(std::string(prefix) + "efficiency", level.efficiency);
    trnmodel::detail::fail(std::string(prefix) + "efficiency",
                           "must be in (0, 1], got " + trnmodel::detail::format_number(level.efficiency));
  }
  return checked_link(level.latency_s, level.bandwidth_bytes_per_s * level.efficiency);
}

/// Bandwidth × efficiency: what a collective achieves on the link.
inline double effective_bandwidth_bytes_per_s(const link_level& level) {
  return check_link("link.", level).bandwidth_bytes_per_s();
}

namespace detail {

// Ranks are counts, taken as double so that sampled quantities and Python floats pass
// through unchanged; a fractional count is an input error, not something to round.
inline void check_ranks(const char* path, double ranks) {
  if (ranks >= 1 && ranks == std::floor(ranks) && std::isfinite(ranks)) return;  // no message to build
  trnmodel::detail::whole_number(path, ranks, 1);
}

inline void check_bytes(double bytes) {
  if (!(bytes >= 0 && std::isfinite(bytes))) trnmodel::detail::check_nonnegative("bytes", bytes);
}

// The front doors' checks, in the order their messages have always come: plain numbers are
// checked ranks, bytes, link; a link_level is checked first.
inline checked_link checked_arguments(double ranks, double bytes, double latency_s, double bandwidth_bytes_per_s) {
  check_ranks("ranks", ranks);
  check_bytes(bytes);
  return check_link("", latency_s, bandwidth_bytes_per_s);
}
inline checked_link checked_arguments(double ranks, double bytes, const link_level& level) {
  const checked_link checked = check_link("link.", level);
  check_ranks("ranks", ranks);
  check_bytes(bytes);
  return checked;
}

}  // namespace detail

// ---------------------------------------------------------------------------------------
// Collective times, seconds, over a checked link. `ranks` must be a whole number ≥ 1 and
// `bytes` ≥ 0: the caller's to ensure (the front doors below check them).
// ---------------------------------------------------------------------------------------

/// Ring reduce-scatter: (p − 1)·α + (p − 1)/p · n/B.
/// The first half of the ring all-reduce of [PY09]; [NCCLT] "ReduceScatter": t = S(n−1)/(B·n).
/// Each of the p − 1 steps sends one n/p chunk to the next rank and receives one from the
/// previous, adding it into the local partial sum. n is the full (input) buffer. This one ring
/// pass is shared by the all-gather and (twice) the all-reduce, so that the identities between
/// them hold exactly in floating point.
inline double ring_reduce_scatter_s(double ranks, double bytes, const checked_link& l) {
  return (ranks - 1) * l.latency_s() + (ranks - 1) / ranks * (bytes / l.bandwidth_bytes_per_s());
}

/// Ring all-gather: (p − 1)·α + (p − 1)/p · n/B.
/// [TRG05] (ring all-gather: T = (p−1)α + ((p−1)/p)nβ); [NCCLT] "AllGather".
/// n is the full (output) buffer; each rank contributes n/p. One ring pass, like the
/// reduce-scatter (the same messages, without the additions).
inline double ring_all_gather_s(double ranks, double bytes, const checked_link& l) {
  return ring_reduce_scatter_s(ranks, bytes, l);
}

/// Ring all-reduce = ring reduce-scatter + ring all-gather:
///   2(p − 1)·α + 2(p − 1)/p · n/B.
/// [PY09]: each rank must send (and receive) at least 2(p−1)/p · n bytes in any all-reduce
/// built on point-to-point messages, and the ring attains that bound, so its bandwidth term
/// is optimal; [NCCLT] derives the same t = (S/B)·2(n−1)/n, which is why busbw (below)
/// recovers B for it. The latency term grows linearly in p: for small n or large p a
/// logarithmic algorithm (halving_doubling_all_reduce_s) or hierarchy is faster.
inline double ring_all_reduce_s(double ranks, double bytes, const checked_link& l) {
  return 2 * ring_reduce_scatter_s(ranks, bytes, l);
}

/// Rabenseifner's all-reduce: reduce-scatter by recursive halving (vector halving, distance
/// doubling), then all-gather by recursive doubling: the long-message all-reduce of
/// [TRG05], whose cost for p a power of two is 2·lg p·α + 2(p−1)/p·nβ (+ the γ term left out
/// here); the non-power-of-two cost is the one stated in MPICH's allreduce source comment.
/// This is the "tree" (logarithmic-latency) variant of this header; NCCL's pipelined double
/// binary tree is NOT modelled (it moves about 2n per rank, not 2(p−1)/p · n).
///   p a power of two:  2·log2(p)·α + 2(p − 1)/p · n/B
///     (log2 p exchange steps in each half; the bytes halve each step: n/2 + n/4 + … = (p−1)/p·n).
///   otherwise, with p' = 2^⌊log2 p⌋:  (2·log2(p') + 2)·α + (2(p' − 1)/p' + 2) · n/B
///     (MPICH drops to p' ranks: r = p − p' even ranks first send their whole buffer to a
///     neighbour, α + n/B, and get the result back at the end, α + n/B. MPICH's comment
///     writes the middle term with (p−1)/p; p' is what the algorithm actually moves.)
/// Not monotone in p: for n > 0, p = 2^k + 1 costs more than p = 2^(k+1). The
/// short-message recursive doubling variant (log2 p·α + log2 p·n/B) is not modelled.
inline double halving_doubling_all_reduce_s(double ranks, double bytes, const checked_link& l) {
  const int steps = std::ilogb(ranks);  // ⌊log2 p⌋ (exact for whole p ≥ 1)
  const double pof2 = std::ldexp(1.0, steps);  // p' = 2^⌊log2 p⌋
  const double per_byte_s = bytes / l.bandwidth_bytes_per_s();
  double time_s = 2 * steps * l.latency_s() + 2 * (pof2 - 1) / pof2 * per_byte_s;
  if (pof2 < ranks) time_s += 2 * l.latency_s() + 2 * per_byte_s;  // fold-in and send-back
  return time_s;
}

/// Point-to-point (send/recv, e.g. a pipeline-stage boundary): α + n/B.
/// The Hockney model that [TRG05] builds every collective cost from; bytes = 0 costs α.
inline double point_to_point_s(double bytes, const checked_link& l) {
  return l.latency_s() + bytes / l.bandwidth_bytes_per_s();
}

/// Hierarchical (two-level) all-reduce over p = nodes × local_ranks ranks, L = local_ranks
/// per node, N = nodes. Algorithm (the 2D scheme of, e.g., Horovod's hierarchical
/// all-reduce; composed here from the ring formulas of [TRG05]/[PY09], docs/throughput.md):
///   1. intra-node ring reduce-scatter of n bytes among the L local ranks:
///        (L − 1)·α_intra + (L − 1)/L · n/B_intra
///   2. L concurrent inter-node ring all-reduces, one per local index, each of the n/L-byte
///      shard among the N ranks with that index:
///        2(N − 1)·α_inter + 2(N − 1)/N · (n/L)/B_inter
///   3. intra-node ring all-gather of n bytes among the L local ranks: same as step 1.
/// Total: 2(L−1)α_intra + 2(L−1)/L · n/B_intra + 2(N−1)α_inter + 2(N−1)/(N·L) · n/B_inter.
/// Assumptions: the phases do not overlap; each local rank drives its own inter-node
/// bandwidth B_inter per direction and the L rings do not contend (e.g. p5.48xlarge:
/// 3,200 Gbps EFA ≈ 50 GB/s per GPU, each direction; docs/profiles.md). If instead the
/// L ranks share one NIC of bandwidth B_nic, pass B_inter = B_nic / L.
/// Monotone in nodes; in local_ranks only while B_inter is not the bottleneck: under the
/// own-link assumption each extra local rank adds inter-node bandwidth and shrinks n/L.
/// Identities (tested): nodes = 1 gives ring_all_reduce_s(L, n, α_intra, B_intra) exactly;
/// local_ranks = 1 gives ring_all_reduce_s(N, n, α_inter, B_inter) exactly; with equal
/// levels (α, B) it equals the flat ring over N·L ranks minus 2(N−1)(L−1)·α: the bandwidth
/// terms coincide (2(L−1)/L + 2(N−1)/(NL) = 2(NL−1)/(NL)) and only latency steps are saved.
inline double hierarchical_all_reduce_s(double nodes, double local_ranks, double bytes, const checked_link& intra,
                                        const checked_link& inter) {
  const double intra_pass_s = ring_reduce_scatter_s(local_ranks, bytes, intra);
  const double inter_s = ring_all_reduce_s(nodes, bytes / local_ranks, inter);
  return intra_pass_s + inter_s + intra_pass_s;
}

// ---------------------------------------------------------------------------------------
// Checked front doors: plain numbers (error paths "ranks", "bytes", "latency_s", ...,
// "intra_latency_s") or link_level arguments (bandwidth × efficiency; error paths carry the
// argument's name: "link.efficiency", "intra.latency_s", "inter.bandwidth_bytes_per_s").
// ---------------------------------------------------------------------------------------

/// Ring reduce-scatter time of `bytes` over `ranks`: (p − 1)(α + n/(pB)).
inline double ring_reduce_scatter_s(double ranks, double bytes, double latency_s, double bandwidth_bytes_per_s) {
  return ring_reduce_scatter_s(ranks, bytes, detail::checked_arguments(ranks, bytes, latency_s, bandwidth_bytes_per_s));
}
/// The same on a link level.
inline double ring_reduce_scatter_s(double ranks, double bytes, const link_level& level) {
  return ring_reduce_scatter_s(ranks, bytes, detail::checked_arguments(ranks, bytes, level));
}

/// Ring all-gather time: (p − 1)(α + n/(pB)).
inline double ring_all_gather_s(double ranks, double bytes, double latency_s, double bandwidth_bytes_per_s) {
  return ring_all_gather_s(ranks, bytes, detail::checked_arguments(ranks, bytes, latency_s, bandwidth_bytes_per_s));
}
/// The same on a link level.
inline double ring_all_gather_s(double ranks, double bytes, const link_level& level) {
  return ring_all_gather_s(ranks, bytes, detail::checked_arguments(ranks, bytes, level));
}

/// Ring all-reduce time: a reduce-scatter then an all-gather, 2(p − 1)(α + n/(pB)).
inline double ring_all_reduce_s(double ranks, double bytes, double latency_s, double bandwidth_bytes_per_s) {
  return ring_all_reduce_s(ranks, bytes, detail::checked_arguments(ranks, bytes, latency_s, bandwidth_bytes_per_s));
}
/// The same on a link level.
inline double ring_all_reduce_s(double ranks, double bytes, const link_level& level) {
  return ring_all_reduce_s(ranks, bytes, detail::checked_arguments(ranks, bytes, level));
}

/// Recursive halving-doubling all-reduce time: 2 log2(p) α + 2 (p − 1)/p · n/B.
inline double halving_doubling_all_reduce_s(double ranks, double bytes, double latency_s,
                                            double bandwidth_bytes_per_s) {
  return halving_doubling_all_reduce_s(ranks, bytes,
                                       detail::checked_arguments(ranks, bytes, latency_s, bandwidth_bytes_per_s));
}
/// The same on a link level.
inline double halving_doubling_all_reduce_s(double ranks, double bytes, const link_level& level) {
  return halving_doubling_all_reduce_s(ranks, bytes, detail::checked_arguments(ranks, bytes, level));
}

/// One message: α + n/B.
inline double point_to_point_s(double bytes, double latency_s, double bandwidth_bytes_per_s) {
  detail::check_bytes(bytes);
  return point_to_point_s(bytes, check_link("", latency_s, bandwidth_bytes_per_s));
}
/// The same on a link level.
inline double point_to_point_s(double bytes, const link_level& level) {
  const checked_link checked = check_link("link.", level);
  detail::check_bytes(bytes);
  return point_to_point_s(bytes, checked);
}

/// Two-level all-reduce: reduce-scatter in the node, all-reduce across nodes, all-gather in the node.
inline double hierarchical_all_reduce_s(double nodes, double local_ranks, double bytes, double intra_latency_s,
                                        double intra_bandwidth_bytes_per_s, double inter_latency_s,
                                        double inter_bandwidth_bytes_per_s) {
  detail::check_ranks("nodes", nodes);
  detail::check_ranks("local_ranks", local_ranks);
  detail::check_bytes(bytes);
  const checked_link intra = check_link("intra_", intra_latency_s, intra_bandwidth_bytes_per_s);
  const checked_link inter = check_link("inter_", inter_latency_s, inter_bandwidth_bytes_per_s);
  return hierarchical_all_reduce_s(nodes, local_ranks, bytes, intra, inter);
}
/// The same on link levels (each checked first, paths "intra.*" and "inter.*").
inline double hierarchical_all_reduce_s(double nodes, double local_ranks, double bytes, const link_level& intra,
                                        const link_level& inter) {
  const checked_link checked_intra = check_link("intra.", intra);
  const checked_link checked_inter = check_link("inter.", inter);
  detail::check_ranks("nodes", nodes);
  detail::check_ranks("local_ranks", local_ranks);
  detail::check_bytes(bytes);
  return hierarchical_all_reduce_s(nodes, local_ranks, bytes, checked_intra, checked_inter);
}

// ---------------------------------------------------------------------------------------
// NCCL-tests bandwidths [NCCLT]
// ---------------------------------------------------------------------------------------

/// The collectives the step-time model prices.
enum class collective_kind {
  all_reduce,  // busbw factor 2(p − 1)/p
  reduce_scatter,  // (p − 1)/p, bytes = the full (input) buffer
  all_gather,  // (p − 1)/p, bytes = the full (output) buffer
  all_to_all,  // (p − 1)/p
  broadcast,  // 1: all data leaves the root through its one link
  reduce,  // 1: all data enters the root through its one link
  send_recv,  // 1
};

/// The busbw correction factor of [NCCLT]: the ratio busbw / algbw that makes a measurement
/// comparable with the per-rank link bandwidth B independently of p, because the ideal time
/// of the collective is factor · n/B. 0 for an all-reduce, reduce-scatter, all-gather or
/// all-to-all of one rank (nothing moves). In-network reduction all-reduce ((p−1)/(p+1) in
/// [NCCLT]) is not covered.
inline double busbw_factor(collective_kind kind, double ranks) {
  detail::check_ranks("ranks", ranks);
  switch (kind) {
    case collective_kind::all_reduce: return 2 * (ranks - 1) / ranks;
    case collective_kind::reduce_scatter:
    case collective_kind::all_gather:
    case collective_kind::all_to_all: return (ranks - 1) / ranks;
    case collective_kind::broadcast:
    case collective_kind::reduce:
    case collective_kind::send_recv: return 1;
  }
  trnmodel::detail::fail("kind", "unknown collective_kind");
}

/// Algorithm bandwidth [NCCLT]: algbw = n / t.
inline double algbw_bytes_per_s(double bytes, double time_s) {
  trnmodel::detail::check_nonnegative("bytes", bytes);
  trnmodel::detail::check_positive("time_s", time_s);
  return bytes / time_s;
}

/// Bus bandwidth [NCCLT]: busbw = algbw · factor (2(p−1)/p for all-reduce). For the ring
/// all-reduce model with α = 0 this returns B for every p: the factor undoes exactly the
/// 2(p−1)/p of the bandwidth term, which is the point of NCCL's definition.
inline double busbw_bytes_per_s(collective_kind kind, double ranks, double bytes, double time_s) {
  const double factor = busbw_factor(kind, ranks);
  return algbw_bytes_per_s(bytes, time_s) * factor;
}

/// The inverse: the time a measured busbw implies for a collective of n bytes on p ranks,
/// t = n · factor / busbw. E.g. 8 × A100, 1 GiB all-reduce at busbw 230.8 GB/s (nccl issue
/// 527): t = 2^30 · 1.75 / 230.8e9 ≈ 8.14 ms. 0 for one rank (factor 0).
inline double time_from_busbw_s(collective_kind kind, double ranks, double bytes, double bus_bandwidth_bytes_per_s) {
  const double factor = busbw_factor(kind, ranks);
  trnmodel::detail::check_nonnegative("bytes", bytes);
  trnmodel::detail::check_positive("bus_bandwidth_bytes_per_s", bus_bandwidth_bytes_per_s);
  return bytes * factor / bus_bandwidth_bytes_per_s;
}

/// All-reduce shorthand: t = 2(p − 1)/p · n / busbw.
inline double all_reduce_time_from_busbw_s(double ranks, double bytes, double bus_bandwidth_bytes_per_s) {
  return time_from_busbw_s(collective_kind::all_reduce, ranks, bytes, bus_bandwidth_bytes_per_s);
}

}  // namespace trnmodel::collectives
