// Step-time model pieces for Python: collectives (α–β), FLOPs per token, memory per device,
// hardware profiles and the analytic step time.
#include <pybind11/stl.h>

#include "json_convert.hpp"
#include "register.hpp"
#include "trnmodel/throughput/collectives.hpp"
#include "trnmodel/throughput/profile.hpp"
#include "trnmodel/throughput/step_time.hpp"

namespace py = pybind11;

namespace trnmodel::python {

namespace {
transformer_shape shape_of(double parameters, double layers, double hidden_size, double heads, double sequence_length,
                           double ffn_size) {
  return {parameters, layers, hidden_size, heads, sequence_length, ffn_size};
}
training_kind kind_of(bool lora, double lora_rank, const std::string& recompute) {
  return {lora, lora_rank, parse_choice<recompute_kind>("recompute", recompute)};
}

// One step of the analytic model in parts (seconds) and the memory per chip (bytes).
struct analytic_step {
  double step_time_s, compute_s, tp_comm_s, pp_bubble_s, pp_p2p_s, dp_comm_s, cp_comm_s, memory_bytes;
};
}  // namespace

void register_throughput(py::module_& m) {
  namespace c = collectives;
  py::module_ col = m.def_submodule("collectives", "α–β cost of collectives (seconds).");
  col.def("ring_all_reduce_s", py::overload_cast<double, double, double, double>(&c::ring_all_reduce_s),
          py::arg("ranks"), py::arg("bytes"), py::arg("latency_s"), py::arg("bandwidth_bytes_per_s"));
  col.def("halving_doubling_all_reduce_s",
          py::overload_cast<double, double, double, double>(&c::halving_doubling_all_reduce_s), py::arg("ranks"),
          py::arg("bytes"), py::arg("latency_s"), py::arg("bandwidth_bytes_per_s"));
  col.def("ring_reduce_scatter_s", py::overload_cast<double, double, double, double>(&c::ring_reduce_scatter_s),
          py::arg("ranks"), py::arg("bytes"), py::arg("latency_s"), py::arg("bandwidth_bytes_per_s"));
  col.def("ring_all_gather_s", py::overload_cast<double, double, double, double>(&c::ring_all_gather_s),
          py::arg("ranks"), py::arg("bytes"), py::arg("latency_s"), py::arg("bandwidth_bytes_per_s"));
  col.def("point_to_point_s", py::overload_cast<double, double, double>(&c::point_to_point_s), py::arg("bytes"),
          py::arg("latency_s"), py::arg("bandwidth_bytes_per_s"));
  col.def("hierarchical_all_reduce_s",
          py::overload_cast<double, double, double, double, double, double, double>(&c::hierarchical_all_reduce_s),
          py::arg("nodes"), py::arg("local_ranks"), py::arg("bytes"), py::arg("intra_latency_s"),
          py::arg("intra_bandwidth_bytes_per_s"), py::arg("inter_latency_s"), py::arg("inter_bandwidth_bytes_per_s"));
  col.def(
      "all_reduce_busbw_bytes_per_s",
      [](double ranks, double bytes, double time_s) {
        return c::busbw_bytes_per_s(c::collective_kind::all_reduce, ranks, bytes, time_s);
      },
      py::arg("ranks"), py::arg("bytes"), py::arg("time_s"));

  m.def(
      "flops_per_token",
      [](double parameters, double layers, double hidden_size, double heads, double sequence_length, double ffn_size,
         bool lora, double lora_rank, const std::string& recompute, bool hardware) {
        const auto shape = shape_of(parameters, layers, hidden_size, heads, sequence_length, ffn_size);
        const auto kind = kind_of(lora, lora_rank, recompute);
        return hardware ? hardware_flops_per_token(shape, kind) : model_flops_per_token(shape, kind);
      },
      py::arg("parameters"), py::arg("layers"), py::arg("hidden_size"), py::arg("heads"), py::arg("sequence_length"),
      py::arg("ffn_size") = 0.0, py::arg("lora") = false, py::arg("lora_rank") = 0.0, py::arg("recompute") = "none",
      py::arg("hardware") = false);

  py::class_<analytic_step>(m, "AnalyticStep")
      .def_readonly("step_time_s", &analytic_step::step_time_s)
      .def_readonly("compute_s", &analytic_step::compute_s)
      .def_readonly("tp_comm_s", &analytic_step::tp_comm_s)
      .def_readonly("pp_bubble_s", &analytic_step::pp_bubble_s)
      .def_readonly("pp_p2p_s", &analytic_step::pp_p2p_s)
      .def_readonly("dp_comm_s", &analytic_step::dp_comm_s)
      .def_readonly("cp_comm_s", &analytic_step::cp_comm_s)
      .def_readonly("memory_bytes", &analytic_step::memory_bytes);
  // Keyword-only: 28 numbers by position are a mistake waiting to happen. The checks are
  // check_step_time_arguments's (step_time.hpp); the binding only forwards.
  m.def(
      "analytic_step_time",
      [](double parameters, double layers, double hidden_size, double heads, double sequence_length, double ffn_size,
         bool lora, double lora_rank, const std::string& recompute, double tp, double pp, double dp, double micro_batch,
         double global_batch, double virtual_stages, int zero_stage, double peak_tflops, double intra_gb_s,
         double intra_latency_us, double intra_efficiency, double inter_gb_s, double inter_latency_us,
         double inter_efficiency, double chips_per_domain, double compute_efficiency, double dp_overlap,
         double hbm_tb_s, double elementwise_traffic, double cp, double kv_heads) {
        step_time_arguments a;
        a.cp = cp;
        a.kv_heads = kv_heads;
        a.parameters = parameters;
        a.layers = layers;
        a.hidden_size = hidden_size;
        a.heads = heads;
        a.sequence_length = sequence_length;
        a.ffn_size = ffn_size;
        a.lora = lora;
        a.lora_rank = lora_rank;
        a.recompute = recompute;
        a.tp = tp;
        a.pp = pp;
        a.dp = dp;
        a.micro_batch = micro_batch;
        a.global_batch = global_batch;
        a.virtual_stages = virtual_stages;
        a.zero_stage = zero_stage;
        a.peak_tflops = peak_tflops;
        a.hbm_tb_s = hbm_tb_s;
        a.chips_per_domain = chips_per_domain;
        a.intra_gb_s = intra_gb_s;
        a.intra_latency_us = intra_latency_us;
        a.intra_efficiency = intra_efficiency;
        a.inter_gb_s = inter_gb_s;
        a.inter_latency_us = inter_latency_us;
        a.inter_efficiency = inter_efficiency;
        a.compute_efficiency = compute_efficiency;
        a.dp_overlap = dp_overlap;
        a.elementwise_traffic = elementwise_traffic;
        const step_time_inputs in = check_step_time_arguments(a);
        const step_parts parts = in.step_time();
        return analytic_step{parts.total(), parts.compute_s, parts.tp_s,    parts.bubble_s,
                             parts.pp_p2p_s, parts.dp_s,     parts.cp_s,    in.memory().total()};
      },
      py::kw_only(), py::arg("parameters"), py::arg("layers"), py::arg("hidden_size"), py::arg("heads"),
      py::arg("sequence_length"), py::arg("ffn_size"), py::arg("lora"), py::arg("lora_rank"), py::arg("recompute"),
      py::arg("tp"), py::arg("pp"), py::arg("dp"), py::arg("micro_batch"), py::arg("global_batch"),
      py::arg("virtual_stages"), py::arg("zero_stage"), py::arg("peak_tflops"), py::arg("intra_gb_s"),
      py::arg("intra_latency_us"), py::arg("intra_efficiency"), py::arg("inter_gb_s"), py::arg("inter_latency_us"),
      py::arg("inter_efficiency"), py::arg("chips_per_domain"), py::arg("compute_efficiency"), py::arg("dp_overlap"),
      py::arg("hbm_tb_s") = 0.0, py::arg("elementwise_traffic") = 0.0, py::arg("cp") = 1.0, py::arg("kv_heads") = 0.0);

  m.def(
      "check_profile",
      [](py::handle doc, const std::string& path) {
        const auto p = platform_profile::from_json(to_json(doc, path), path);
        return p.name;
      },
      py::arg("doc"), py::arg("path"));
}

}  // namespace trnmodel::python
