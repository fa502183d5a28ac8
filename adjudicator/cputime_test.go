package adjudicator_test

import "github.com/adjutant-pbem/adjutant/adjudicator/internal/cputime"

// processCPU is the CPU time the process has used so far (cputime.Process).
var processCPU = cputime.Process
