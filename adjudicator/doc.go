// Package adjudicator is the game-agnostic desk of Adjutant: the email command language,
// player authentication, the game lifecycle, the phase machine, deadlines, sealing and
// revealing orders, and calling a [Ruleset] to resolve a phase. It talks neither IMAP nor
// SMTP and touches no database directly: messages come in as [Message] values (a raw mail
// is read into one by [ReadMessage], for the intake and pipe mode alike), mails go out
// through the outbox of a [store.Store], inside the same transaction as their cause.
//
// # The ruleset interface
//
// A ruleset is pure: given its state, the orders a phase resolves and a [dice.Source], it
// returns the new state and events. The desk drives it as a loop:
//
//	for the game is not over and Waiting(state, filed) is empty:
//	    inputs := Inputs(state, filed)          // the orders this phase resolves
//	    outcome := Resolve(state, inputs, dice)  // dice seeded per turn, see package dice
//
// so that phases needing no decision run at once, and a phase needing a decision waits
// for its orders or its deadline. Orders are filed as canonical text under a phase, a
// side and a key; a later order with the same key replaces an earlier one until the
// ruleset marks it fixed. Orders for a later phase are simply filed early: the ruleset's
// Check decides which phase an order block belongs to, and Inputs picks them up when that
// phase comes. Hidden orders (plots) are filed sealed, with a commitment, and revealed
// when an Outcome says so.
//
// How the four rulebooks fit that shape:
//
//   - Soldiers: Decision in the Trenches, 1918 (rulebook 001, package soldiers1918). Set-up
//     is turn 0 in three waiting phases: the plots (3.2 US six-turn plot, 3.3 German turn-1
//     plot, both sealed), then the 3.4 division-quality roll, the German placement (3.5)
//     and the US placement (3.6). Each of turns 1–6 runs phases I–XI of 5.2. Phase I (US
//     bombardment execution, with the optional cancellation attempt as a standing order)
//     and III (German execution) need no decision; II (German plot for the next turn) waits
//     for the German player; IV and V (Chaos of War) roll and place the markers from the
//     placing player's standing priority list, and wait for one only when none is on file;
//     VI (visibility) runs at once; VII and X (movement) and VIII and IX (fire) wait for
//     the moving or firing side, whose orders may come early and are held; XI runs at once.
//     The second game of a two-game match (4.2) is set up from the first through the
//     optional [Matcher] interface.
//   - Soissons 1918 (rulebook 002). Turns cycle AM, PM and Night (4.1). Each operational
//     phase is a sequence of segments; the mutual bombardment segments (C.3, C.6) are one
//     waiting phase in which both players' bombardment placements are sealed and then
//     revealed together, the phasing player's resolved first. Segments in which only the
//     phasing player acts (assault, maneuver, improvised attack) wait for that side; fall
//     back waits for the non-phasing side. The turn number counts AM/PM/Night turns, so
//     each one has its own dice seed.
//   - The Old Contemptibles: Mons 1914 (rulebook 004). The German player turn is fixed
//     (movement, then bombardment and melee). The British player turn starts with a
//     waiting phase in which the British player declares move/fight, fight/move,
//     fight/fight or move/move (5.3); the ruleset's state then lists the two phases that
//     follow, so the phase machine needs nothing special. Stacks are hidden (fog of war),
//     which the ruleset's Map and event visibility express per side.
//   - The Soldiers teaching game (rulebook 003). Each player has a poker deck: the ruleset
//     draws with [dice.Source] Shuffle, audited like any roll, and keeps the deck order in
//     its state (hidden from both players until cards are turned). Artillery scatter is a
//     card draw; the chips that are next turn's movement orders are an order block of the
//     American player filed for the next turn's movement phase.
//
// Randomness comes only from package dice; the desk keeps one seed per game turn, commits
// to it when the turn opens and reveals it when the turn ends.
package adjudicator
