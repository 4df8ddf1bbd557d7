// The shared kernel plan (ve/plan/kernel_plan.h) under its names in the CPU engine's namespace.
#pragma once

#include "ve/plan/kernel_plan.h"

namespace hassium::cpu {
using plan::ArrayRole;
using plan::bind_plan;
using plan::KernelPlan;
using plan::kParallelMin;
using plan::plan_block;
using plan::replan_block;
using plan::PlanArray;
using plan::PlanConstant;
using plan::PlanInstr;
using plan::PlanOperand;
using plan::StrideClass;
} // namespace hassium::cpu
