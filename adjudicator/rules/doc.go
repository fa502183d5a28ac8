// Package rules is the contract between the desk and the rulesets: what a ruleset is
// ([Ruleset] and the optional interfaces a ruleset may also implement), what it works on
// ([State], [Order], [Side]) and what it answers ([Checked], [Outcome], [Event]), with
// the few helpers every ruleset needs ([Sides] for the other side and a side's name,
// [FindOrder], the [Log] a resolution tells its events through) and the [Registry] a
// binary looks rulesets up in.
//
// It is the ground floor: it imports only the kit's pure packages (dice, hex, mapview,
// orders), never the desk, the store, mail, templates or picture code, so that a
// ruleset, which imports only this package and the kit, links no database and no
// drawing library. The desk (package adjudicator) and the four rulesets import it.
package rules
