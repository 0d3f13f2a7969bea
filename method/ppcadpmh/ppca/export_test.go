package ppca

// PlansBuilt is how many plans NewPlan has calibrated in this process.
func PlansBuilt() int64 { return plansBuilt.Load() }
