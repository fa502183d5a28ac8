// Throwaway probe for writing conformance cases; not part of the module's packages (./... skips _dirs).
package main

import (
	"fmt"
	"os"

	"github.com/adjutant-pbem/adjutant/adjudicator/hex"
	"github.com/adjutant-pbem/adjutant/adjudicator/soldiers1918"
)

func main() {
	r, err := soldiers1918.New()
	if err != nil {
		panic(err)
	}
	sc := r.Scenario()
	args := os.Args[1:]
	if len(args) >= 1 && args[0] == "dist" {
		a, b := hex.MustParse(args[1]), hex.MustParse(args[2])
		fmt.Println(sc.Grid.Distance(a, b))
		return
	}
	for _, a := range args {
		h := hex.MustParse(a)
		c, t := sc.EnterCost(h)
		d, dt := sc.Defence(h)
		fmt.Printf("%s on=%v feat=%v cost=%d(%s) def=%d(%s) exit=%v nb=", h, sc.OnMap(h), sc.Hex(h).Features, c, t, d, dt, sc.Hex(h).Exit)
		for _, n := range sc.Grid.Neighbours(h) {
			if sc.OnMap(n) {
				fmt.Print(n, " ")
			}
		}
		fmt.Println()
	}
}
