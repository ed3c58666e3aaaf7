#pragma once
// Boost.Math policy for the hot loop: no promotion of double to long double (which costs
// several times the speed for no accuracy we need), and errors reported through errno
// instead of exceptions, because every parameter was validated before sampling starts.
#include <boost/math/policies/policy.hpp>

namespace trnmodel::detail {

using fast_policy =
    boost::math::policies::policy<boost::math::policies::promote_float<false>,
                                  boost::math::policies::promote_double<false>,
                                  boost::math::policies::domain_error<boost::math::policies::errno_on_error>,
                                  boost::math::policies::pole_error<boost::math::policies::errno_on_error>,
                                  boost::math::policies::overflow_error<boost::math::policies::errno_on_error>,
                                  boost::math::policies::evaluation_error<boost::math::policies::errno_on_error>>;

}  // namespace trnmodel::detail
