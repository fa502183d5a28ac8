// Package teaching adjudicates the Soldiers teaching game, "Assault through No Man's
// Land in WWI" (rulebook 003): American sections cross No Man's Land against German
// rifles and MGs, with poker decks for randomness. It is built on the shared
// hex-and-counter kit: the map is a [board.Map] file, what a move may cross and what it
// costs against the chip's allowance is its terrain effects table ([board.TEC],
// data/tec.txt: a hex a step, uncut wire bars a hexside, wire cut in an earlier turn is
// a "cut" hexside of the map the move is judged on), paths and
// reach come from package board, and the map is drawn by package mapview.
//
// The rulebook numbers five rules (1 artillery, 2 rifle and MG fire, 3 movement and
// hand to hand, 4 barbed wire, 5 chips); the set-up and the turn sequence are the
// unnumbered paragraphs before them, cited here as "set-up" and "sequence".
//
// # Phases
//
// setup-de (the German sets up first), setup-us, then for each game turn N the American
// turn "us" (artillery, movement, hand to hand, wire, chips) and the German turn "de"
// (artillery, fire). The German turn of turn 1 is played without him: rules 1 and 2
// allow no German artillery, rifle or MG fire on the first turn. Orders are filed for
// "N.<phase>" and a second mail replaces the first.
//
// A turn is one mail, or more at the player's choice: the sequence plays each step on
// what the steps before it left, so a mail may end with STOP AFTER ARTILLERY (either
// side) or STOP AFTER HAND TO HAND (the American), and the turn waits after that step
// in phase "us-move" (steps 3-5), "us-wire" (steps 4-5) or "de-fire" (step 2) for the
// player's next mail, with the desk's deadline and PASS as its default. A mail that
// does not stop may still hold a move that only a German its shells may kill forbids:
// it is accepted for now and judged when step 3 comes. The game
// ends when every German MG is dead, when no live American is left (not printed), or at
// a turn limit the host chose (not printed); the score is the American casualties.
//
// # Cards
//
// Each side has a 52-card deck, shuffled by the server when the game is created from
// the game's deck seed (the ruleset is an rules.Dealer; package dice, Dealer): the
// invitations carry the seed's commitment and the record of each shuffle (the cards
// before it, never after), and the order stays sealed in the state, shown by no map,
// status or mail. A card turned is the next card of its deck; the event that turns it
// carries its record (dice.Deal: the deck, its place in the deck, the card, purpose and
// rule), which the desk writes to the audit trail and the results mails. When the game
// ends the desk reveals the deck seed and the last results show both decks whole, so
// that either player re-derives every card from his mails. A used-up deck has its
// discards (in the order they were turned) shuffled into a new deck from the same seed
// as the deck's next shuffle (not printed; the option noreshuffle turns it off, and
// then a shell without a card is not fired and a 1 to 1 fight without one kills
// nobody). Conformance cases state a deck's order ("deck us AS 2H") and reshuffle with
// dice.NewScriptDealer, which keeps the discards in their order.
//
// # Reconstructed data
//
// data/map.txt (the map: trenches, bunkers, wire), data/scatter.txt (rule 1's chart,
// missing from the text but for the Ace) and data/mix.txt (the counter mixes, default
// set-ups and hand-to-hand strengths) mark every value printed or reconstructed, and are
// validated when the ruleset loads. Reconstructed rules are marked where they are
// applied and listed in HELP: how hand-to-hand strength is counted, an MG's arc, fire
// "through" smoke (the kit's line of sight, a hexside of a smoke hex included), what
// an "American setup hex" is, shells landing off the map, over-stacking moves undone,
// smoke staying for the game (the rule's own words; option smoke-clears), one combined
// fire killing as many units of its target chip as its points pay for.
package teaching
