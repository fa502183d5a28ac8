//go:build !unix

package adjudicator_test

import "time"

// processCPU is not measured here: BenchmarkHandle reports 0 CPU time.
func processCPU() time.Duration { return 0 }
