package rules

import (
	"fmt"

	"github.com/adjutant-pbem/adjutant/adjudicator/dice"
)

// Log is the events of a phase being resolved, in rule order: the one builder the
// rulesets tell what happened through, to every side, to one, or to each its own.
type Log struct {
	// State is the state being resolved: an event is of the phase it is at when the
	// event is told, since one resolution may step through several phases. Nil: the
	// events have no phase (an order check, whose events no one reads).
	State State
	// Sides are the game's sides, for the other side of ToEach and OtherOnly.
	Sides Sides
	// Events are the events told so far.
	Events []Event
}

func (l *Log) phase() string {
	if l.State == nil {
		return ""
	}
	return l.State.Phase()
}

// Tell adds an event of rule with text format and args, to the sides to (nil: every
// side), reporting roll when it is not nil, and returns it for the caller to add what
// else it carries (a card's Deal).
func (l *Log) Tell(rule string, to []Side, roll *dice.Roll, format string, args ...any) *Event {
	l.Events = append(l.Events, Event{Phase: l.phase(), Rule: rule, Text: fmt.Sprintf(format, args...), To: to, Roll: roll})
	return &l.Events[len(l.Events)-1]
}

// Event tells every side.
func (l *Log) Event(rule, format string, args ...any) {
	l.Tell(rule, nil, nil, format, args...)
}

// EventTo tells the sides to (nil: every side).
func (l *Log) EventTo(rule string, to []Side, format string, args ...any) {
	l.Tell(rule, to, nil, format, args...)
}

// RollEvent tells every side what roll gave: the results mail gives the roll's inputs
// with it, so that a player can re-derive it once the seed is revealed.
func (l *Log) RollEvent(rule string, roll dice.Roll, format string, args ...any) {
	l.Tell(rule, nil, &roll, format, args...)
}

// OwnerOnly tells side alone: an order of his that was not carried out says what he
// meant to do, which the other side learns only when it happens (invariant 5).
func (l *Log) OwnerOnly(side Side, rule, format string, args ...any) {
	l.Tell(rule, []Side{side}, nil, format, args...)
}

// OtherOnly tells the side that is not side: OwnerOnly's counterpart.
func (l *Log) OtherOnly(side Side, rule, format string, args ...any) {
	l.Tell(rule, []Side{l.Sides.Other(side)}, nil, format, args...)
}

// ToEach tells side own and the other side others, in one event every side sees when
// they are the same (invariant 5: the part of side's orders that had no effect, or a
// choice of his that did not arise, is his alone; the other side reads what happened).
// roll, when not nil, is the roll the event reports, given with both texts.
func (l *Log) ToEach(rule string, roll *dice.Roll, side Side, own, others string) {
	if own == others {
		l.Tell(rule, nil, roll, "%s", own)
		return
	}
	l.Tell(rule, []Side{side}, roll, "%s", own)
	l.Tell(rule, []Side{l.Sides.Other(side)}, roll, "%s", others)
}
