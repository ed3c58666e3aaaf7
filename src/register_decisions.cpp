// Decisions (docs/decisions.md): payback of a port. Per-sample arrays cross to Python as NumPy
// arrays; python/trnmodel/_decisions.py turns them into a result with its summary and plot.
#include <pybind11/numpy.h>
#include <pybind11/stl.h>

#include "python_run.hpp"
#include "register.hpp"
#include "trnmodel/decisions/advisor.hpp"
#include "trnmodel/decisions/choice_drivers.hpp"
#include "trnmodel/decisions/payback.hpp"
#include "trnmodel/decisions/plan.hpp"
#include "json_convert.hpp"

namespace py = pybind11;

namespace trnmodel::python {

namespace {
py::array_t<double> to_array(const std::vector<double>& v) { return py::array_t<double>(v.size(), v.data()); }
}  // namespace

void register_decisions(py::module_& m) {
  py::class_<fired_rule>(m, "FiredRule")
      .def_property_readonly("makes", [](const fired_rule& r) { return std::string(code_of(r.makes)); })
      .def_readonly("rule", &fired_rule::rule)
      .def_readonly("because", &fired_rule::because);
  py::class_<advice>(m, "Advice")
      .def_property_readonly("recommendation", [](const advice& a) { return std::string(code_of(a.what)); })
      .def_property_readonly("label", [](const advice& a) { return std::string(label_of(a.what)); })
      .def_readonly("rules", &advice::rules)
      .def_readonly("score", &advice::score);
  m.def(
      "advise_scenario",
      [](const scenario& s, const std::string& kind) {
        return advise(project_facts::from_scenario(s), parse_choice<job_kind>("job_kind", kind));
      },
      py::arg("scenario"), py::arg("job_kind"));
  m.def(
      "advise_facts",
      [](py::handle facts, const std::string& kind) {
        return advise(project_facts::from_json(to_json(facts, "project")), parse_choice<job_kind>("job_kind", kind));
      },
      py::arg("facts"), py::arg("job_kind"));

  py::class_<payback_result>(m, "PaybackRun")
      .def_property_readonly("side", [](const payback_result& r) { return std::string(1, r.side); })
      .def_property_readonly("runs", [](const payback_result& r) { return to_array(r.runs); })
      .def_property_readonly("run_saving_usd", [](const payback_result& r) { return to_array(r.run_saving_usd); })
      .def_property_readonly("extra_porting_usd",
                             [](const payback_result& r) { return to_array(r.extra_porting_usd); })
      .def_readonly("mean_run_cost_a_usd", &payback_result::mean_run_cost_a_usd)
      .def_readonly("mean_run_cost_b_usd", &payback_result::mean_run_cost_b_usd);
  m.def(
      "payback",
      [](const scenario& a, const scenario& b, const std::string& side, std::uint64_t samples, std::uint64_t seed,
         int threads, const py::object& progress) {
        run_options options;
        options.samples = samples;
        options.seed = seed;
        options.threads = threads;
        const char which = side.empty() ? 0 : side[0];
        if (side.size() > 1 || (which != 0 && which != 'a' && which != 'b'))
          detail::fail("side", "must be \"a\", \"b\" or None (the side cheaper to run on average), got \"" + side +
                                   "\"");
        return with_python_hooks(options, progress,
                                 [&](const run_options& hooked) { return payback(a, b, hooked, which); });
      },
      py::arg("a"), py::arg("b"), py::kw_only(), py::arg("side"), py::arg("samples"), py::arg("seed"),
      py::arg("threads"), py::arg("progress"));
  // The sign-off's payback from its own simulations (every metric kept): payback's result
  // without running both scenarios again.
  m.def(
      "payback_of",
      [](const run_result& a, const run_result& b, const std::string& side) {
        const char which = side.empty() ? 0 : side[0];
        if (side.size() > 1 || (which != 0 && which != 'a' && which != 'b'))
          detail::fail("side", "must be \"a\", \"b\" or None (the side cheaper to run on average), got \"" + side +
                                   "\"");
        py::gil_scoped_release release;
        return payback_of(a, b, which);
      },
      py::arg("a"), py::arg("b"), py::kw_only(), py::arg("side"));
  py::class_<plan>(m, "Plan")
      .def_static(
          "from_text",
          [](const std::string& text, const std::string& directory, const py::dict& profiles) {
            return plan::from_json(detail::parse_strict_json(text, "plan"), directory, library_of(profiles));
          },
          py::arg("text"), py::arg("directory"), py::arg("profiles"))
      .def_static(
          "from_obj",
          [](py::handle obj, const std::string& directory, const py::dict& profiles) {
            return plan::from_json(to_json(obj, ""), directory, library_of(profiles));
          },
          py::arg("obj"), py::arg("directory"), py::arg("profiles"))
      .def_readonly("name", &plan::name)
      .def_readonly("description", &plan::description)
      .def_readonly("runs", &plan::runs)
      .def_readonly("start", &plan::start)
      .def_readonly("deadline", &plan::deadline)
      .def_readonly("gpu_baseline", &plan::gpu_baseline)
      .def_readonly("trainium_pilot", &plan::trainium_pilot)
      .def_readonly("trainium_production", &plan::trainium_production)
      .def_readonly("project", &plan::project)
      .def("input_names", [](const plan& p) {
        std::vector<std::string> names;
        for (const auto& input : p.inputs()) names.push_back(input.name);
        return names;
      });
  py::class_<project_facts>(m, "ProjectFacts");
  m.def("advise_plan", [](const project_facts& facts, const std::string& kind) {
    return advise(facts, parse_choice<job_kind>("job_kind", kind));
  }, py::arg("facts"), py::arg("job_kind"));
  m.attr("PLAN_SCHEMA_V1") = plan_schema;
  m.attr("PLAN_OUTPUTS") = plan_output_names();
  m.def(
      "plan_strategies",
      [](const plan& p, std::uint64_t samples, std::uint64_t seed, int threads, const py::object& progress) {
        run_options options;
        options.samples = samples;
        options.seed = seed;
        options.threads = threads;
        return with_python_hooks(options, progress,
                                 [&](const run_options& hooked) { return plan_strategies(p, hooked); });
      },
      py::arg("plan"), py::kw_only(), py::arg("samples"), py::arg("seed"), py::arg("threads"), py::arg("progress"));
  py::class_<choice_drivers>(m, "ChoiceDrivers")
      .def_readonly("favourite", &choice_drivers::favourite)
      .def_readonly("runner_up", &choice_drivers::runner_up)
      .def_readonly("p_favourite", &choice_drivers::p_favourite)
      .def_readonly("factors", &choice_drivers::factors)
      .def_property_readonly("spearman", [](const choice_drivers& d) { return d.correlations.spearman; })
      .def_property_readonly("prcc", [](const choice_drivers& d) { return d.correlations.prcc; });
  m.def(
      "plan_choice_drivers",
      [](const plan& p, const run_result& strategies, std::uint64_t seed) {
        py::gil_scoped_release release;
        return plan_choice_drivers(p, strategies, seed);
      },
      py::arg("plan"), py::arg("strategies"), py::arg("seed"));
}

}  // namespace trnmodel::python
