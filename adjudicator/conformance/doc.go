// Package conformance runs adjudication cases kept as data files, in the tradition of the
// Diplomacy Adjudicator Test Cases (DATC): every worked example of a rulebook is a case,
// and every bug found later becomes one (DESIGN.md, "Conformance cases"). The same runner
// executes every ruleset's corpus; a ruleset takes part through a small [Adapter] that
// builds a state from the case's STATE lines and describes a state as lines the EXPECT
// section can name.
//
// # The case format
//
// A file holds any number of cases. "#" starts a comment to the end of the line (on any
// line); blank lines are ignored; indentation is free.
//
//	CASE us-bombardment-3-to-1          one word: the subtest name (go test -run)
//	RULE 12.2, 10.3, 10.8               the rule sections the case pins (required)
//	STATE                               ruleset-specific lines for Adapter.State
//	  turn 1
//	  phase I
//	ORDERS                              "side: order line", in submission order
//	  us: PLOT TURN 1 1911x6
//	  us: PLOT TURN 2 NONE
//	  ---                               ends a submission: the next us: lines are a new mail
//	  de: PLOT TURN 2 NONE
//	DICE 1 4 6                          die values, in order; may go on following lines
//	EXPECT
//	  unit de-inf 1911 1                a line that Adapter.Describe(final) must contain
//	  absent: cancelled                 a line that Describe(final) must not contain
//	  event: odds 3:1                   a substring of some event's text
//	  event: arrow attack 2304-2305     an arrow the picture draws of an event (rules.Aim)
//	  unseen: de BEYOND 2709            a substring of no event the side de receives
//	  phase: II                         the phase the case ends in, see below
//	  turn: 2                           the turn the case ends in, see below
//	  refused: not on the map           a substring of some refusal reason, see below
//	END
//
// STATE, ORDERS and DICE may be left out; EXPECT is required and not empty. Each section
// appears at most once, in any order. Expected state lines and Describe's lines are
// compared with their runs of white space collapsed.
//
// # What a case does ([Check])
//
//  1. Adapter.State builds the starting state from the STATE lines.
//  2. The ORDERS lines are grouped into submissions, as mails would be: consecutive lines
//     of one side form one submission, and a line "---" ends one early. Each submission
//     goes to Ruleset.Check with the orders filed so far; its lines are numbered 1, 2, ...
//     in the order of the ORDERS section. Every line must get a verdict. When every line
//     of a submission is OK its orders are filed, replacing any order with the same ID,
//     as the desk does; a sealed order gets a fixed fake commitment.
//  3. With an EXPECT "refused:" line the case asserts that some line was refused with a
//     reason containing each refused substring, and that nothing else happens: no phase
//     is resolved, so the case may have no DICE and no "event:" lines, and its state
//     lines, "phase:" and "turn:" are checked against the unchanged starting state.
//     Without one, every line must be OK.
//  4. Phases are resolved exactly as the desk resolves them: while the game is not over
//     and Ruleset.Waiting is empty, Inputs then Resolve with one [dice.Script] shared by
//     the whole case, then the outcome's Revealed, Fixed and Consumed are applied to the
//     filed orders. The loop also stops as soon as a resolved phase leaves the state in
//     the EXPECT "phase:" (and, when given, "turn:"): the starting state does not count,
//     so a case that starts in a phase and expects that same phase runs until the phase
//     comes round again, and a case expecting phase III in turn 2 runs through turn 1's
//     phase III without stopping.
//  5. The case passes when the script reports no error and has no value left (the rules
//     rolled exactly the dice the case gives, no more and no fewer), every expected state
//     line is in Describe(final) and no "absent:" line is, every "event:" substring occurs
//     in some event's text, and the final phase and turn are the expected ones.
//
// A failing case is reported as a [*Failure]: the file and line of the case, every
// problem found, the verdict on each order line, the events, the rolls made from the
// DICE and the described state.
package conformance
