// hassium: lazy, fused, JIT-compiled n-d arrays for C++. Include this one header.
//
//   #include <hassium/hassium.h>
//   auto x = hassium::linspace(0.0, 1.0, 1000);
//   auto y = hassium::sin(x) * 2.0 + 1.0;       // recorded, not run
//   double s = hassium::sum(y).item();         // runs the fused kernel(s)
//
// array.h has the semantics (views, assignment, when things run), types.h the type promotion,
// index.h the slicing syntax.
#pragma once

#include "hassium/array.h"
#include "hassium/creation.h"
#include "hassium/error.h"
#include "hassium/index.h"
#include "hassium/math.h"
#include "hassium/operators.h"
#include "hassium/profile.h"
#include "hassium/reductions.h"
#include "hassium/settings.h"
#include "hassium/types.h"
