#pragma once
// The choices of the scenario and journal formats, each declared once below: its C++ enum, and
// its spellings in the enum's order. The field tables (scenario/fields.hpp,
// calibrate/journal_fields.hpp) name a choice field's enum, so the loaders, the JSON Schemas'
// "enum", the did-you-mean and the Python enums (tm.fields) all read the same spellings; code
// compares enums, and a spelling is read or written only at a format's edge (parse_choice,
// name_of_choice).
#include <cstddef>
#include <string>
#include <vector>

#include "trnmodel/check.hpp"
#include "trnmodel/detail/did_you_mean.hpp"

// X(enum, spellings...): the first spelling is the enumerator 0. An enumerator that would be a
// C++ keyword ends in an underscore, which its spelling leaves out (short_ is spelt "short").
// clang-format off
#define TRNMODEL_CHOICES(X)                                                                     \
  /* the scenario format (docs/scenario.md) */                                                  \
  X(job_kind, lora, full, continued)                          /* job.kind */                    \
  X(recompute_kind, none, selective, full)                    /* job.recompute */               \
  X(throughput_mode, measured, extrapolated, flops, analytic) /* throughput.mode */             \
  X(compute_precision, bf16, fp8, fp32)                       /* throughput.precision */        \
  X(failure_distribution, exponential, weibull)               /* failures.distribution */       \
  X(purchase_mode, on_demand, capacity_block, spot)           /* prices.purchase */             \
  X(change_rate, rare, frequent)                              /* project.architecture_changes */\
  X(neuron_experience, none, some, experienced)               /* project.team_neuron_experience */\
  X(error_cost, low, high)                                    /* project.error_cost */          \
  X(cycle_length, short_, long_)                              /* project.training_cycle */      \
  /* the journal format's own (docs/journal.md) */                                              \
  X(purchase_option, on_demand, spot, reserved, capacity_block, savings_plan, other)            \
  X(time_unit, s, ms)                                         /* step_times.unit */             \
  X(interruption_cause, node_health_check, accelerator_error, hardware_error, network_error,    \
    storage_error, hang_timeout, out_of_memory, software_error, preemption, maintenance, user,  \
    other)                                                                                      \
  X(quality_direction, lower, higher)                         /* quality.better */              \
  X(quality_scope, trial, job)                                /* quality.scope */           \
  /* the training logs an importer reads (docs/importing.md) */                                 \
  X(log_format, tensorboard, mlflow, hf_trainer, csv, console) /* trnmodel import KIND */  \
  X(metric_meaning, clock, step_time_s, throughput)           /* what a logged metric's values are */
// clang-format on

namespace trnmodel {

/// The enum of each choice (the spellings of the format, docs/scenario.md).
#define TRNMODEL_CHOICE_ENUM(type, ...) enum class type { __VA_ARGS__ };
TRNMODEL_CHOICES(TRNMODEL_CHOICE_ENUM)
#undef TRNMODEL_CHOICE_ENUM

/// The type of a field that is no choice (its list of spellings is empty).
enum class no_choice {};

namespace detail {
// "a, b, c" (a stringized enumerator list) -> {"a", "b", "c"}.
inline std::vector<std::string> split_enumerators(const char* text) {
  std::vector<std::string> names(1);
  for (const char* c = text; *c != '\0'; ++c) {
    if (*c == ',') {
      names.emplace_back();
    } else if (*c != ' ') {
      names.back() += *c;
    }
  }
  for (auto& name : names)
    if (name.size() > 1 && name.back() == '_') name.pop_back();  // a keyword's enumerator: short_ is "short"
  return names;
}
}  // namespace detail

/// The spellings of choice E, in the order of its enumerators.
template <class E>
const std::vector<std::string>& choice_names();

/// No spellings for a field that is no choice.
template <>
inline const std::vector<std::string>& choice_names<no_choice>() {
  static const std::vector<std::string> none;
  return none;
}

#define TRNMODEL_CHOICE_NAMES(type, ...)                                                        \
  template <>                                                                                   \
  inline const std::vector<std::string>& choice_names<type>() {                                 \
    static const std::vector<std::string> names = detail::split_enumerators(#__VA_ARGS__);      \
    return names;                                                                               \
  }
TRNMODEL_CHOICES(TRNMODEL_CHOICE_NAMES)
#undef TRNMODEL_CHOICE_NAMES

/// One choice as a whole: its enum's name in C++ and its spellings (for the binding and the docs).
struct choice_list {
  std::string type;  ///< the enum's name, e.g. "purchase_mode"
  std::vector<std::string> spellings;  ///< its spellings, in the enumerators' order
};

/// Every choice of the formats, in declaration order.
inline const std::vector<choice_list>& all_choices() {
#define TRNMODEL_CHOICE_LIST(type, ...) choice_list{#type, choice_names<type>()},
  static const std::vector<choice_list> lists{TRNMODEL_CHOICES(TRNMODEL_CHOICE_LIST)};
#undef TRNMODEL_CHOICE_LIST
  return lists;
}

/// The spelling of a choice's value, as the format writes it.
template <class E>
const std::string& name_of_choice(E value) {
  return choice_names<E>()[static_cast<std::size_t>(value)];
}

/// The value spelt `text`, or input_error naming `path`, the allowed spellings and the closest.
template <class E>
E parse_choice(const std::string& path, const std::string& text) {
  const auto& names = choice_names<E>();
  for (std::size_t k = 0; k < names.size(); ++k)
    if (names[k] == text) return static_cast<E>(k);
  std::string list;
  for (const auto& name : names) list += (list.empty() ? "" : ", ") + name;
  detail::fail(path, "must be one of " + list + ", got \"" + text + "\"" + detail::did_you_mean(text, names));
}

}  // namespace trnmodel
