package main

import (
	"fmt"
	"strings"

	"github.com/adjutant-pbem/adjutant/adjudicator"
)

// ClubSection is the [club] table: what players may do by mail besides playing.
type ClubSection struct {
	Closed      bool     `toml:"closed" doc:"true: players may not open games by mail (NEW is refused with a reason and the host's address); the host's commands still create games, and players still LIST, JOIN open games and OBSERVE. false (the default): players open games by mail." example:"false"`
	Allow       []string `toml:"allow" doc:"Who may open games by mail: addresses (\"ann@example.org\") or domains (\"example.org\"). Empty (the default): anyone." example:"[]"`
	MaxOpen     int      `toml:"max_open" doc:"How many open games (nobody joined yet) one address may hold at once; 0 is the default, 3." example:"3"`
	PhaseLength Duration `toml:"phase_length" doc:"The deadline of each phase of a game opened by mail; at a deadline it goes on with the ruleset's default orders. Empty or 0: 72h." example:"72h"`
}

// desk is the club's settings as the desk takes them.
func (c ClubSection) desk() adjudicator.Club {
	return adjudicator.Club{Closed: c.Closed, Allow: c.Allow, MaxOpen: c.MaxOpen, PhaseLength: c.PhaseLength.Duration}
}

// check lists what is wrong with the [club] table.
func (c ClubSection) check() []error {
	var errs []error
	if c.MaxOpen < 0 {
		errs = append(errs, fmt.Errorf("club.max_open: %d: expected 0 (the default, 3) or more", c.MaxOpen))
	}
	if err := adjudicator.CheckSpan("club.phase_length", c.PhaseLength.Duration); err != nil {
		errs = append(errs, err)
	}
	for _, a := range c.Allow {
		if strings.TrimSpace(a) == "" || strings.ContainsAny(a, " \t,") {
			errs = append(errs, fmt.Errorf("club.allow: %q: expected an address or a domain", a))
		}
	}
	return errs
}
