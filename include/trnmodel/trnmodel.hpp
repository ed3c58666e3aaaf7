#pragma once
// Everything public in one include.
#include "trnmodel/version.hpp"
#include "trnmodel/errors.hpp"
#include "trnmodel/check.hpp"
#include "trnmodel/random/philox.hpp"
#include "trnmodel/random/stream_id.hpp"
#include "trnmodel/dist/distributions.hpp"
#include "trnmodel/dist/quantity.hpp"
#include "trnmodel/dist/quantity_json.hpp"
#include "trnmodel/montecarlo/accumulators.hpp"
#include "trnmodel/montecarlo/engine.hpp"
#include "trnmodel/montecarlo/function_model.hpp"
