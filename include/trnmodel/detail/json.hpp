#pragma once
// The project's JSON type: nlohmann's ordered variant, so that saved scenarios and
// distributions keep the order in which people wrote (and read) their keys.
#include <nlohmann/json.hpp>

namespace trnmodel {
using json = nlohmann::ordered_json;
}  // namespace trnmodel
