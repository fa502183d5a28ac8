#!/usr/bin/env python3
"""Check Adjutant's dice from the mails of one game: python3 checkdice.py MAIL.txt ...
(the mails saved as text, oldest first). Re-derives every roll whose seed has been
revealed and, once the deck seed is revealed, every card turned from a sealed deck;
checks every seed and revealed sealed order against its commitment, and each list of
the commitments of one mail's sealed orders against the one commitment the other side
was told for them. In a game played with the beacon (--dice beacon) it re-derives each
roll with its drand round (message version 2) and checks that every roll has one; the
rounds' BLS signatures need a pairing, which the standard library lacks: `adjutant
checkmails` checks them.
The rules it follows are in docs/dice.md. Python 3 standard library only."""
import hashlib, hmac, re, sys, urllib.parse
text = "\n".join(open(f, encoding="utf-8").read() for f in sys.argv[1:]).replace("\r\n", "\n")
H = lambda b: hashlib.sha256(b).hexdigest()
F = lambda b: len(b).to_bytes(4, "big") + b  # a length-prefixed field
field = urllib.parse.unquote_to_bytes  # undoes the %XX escapes of quoted fields
bad = 0
def check(ok, what):
    global bad; bad += not ok; print(("ok   " if ok else "BAD  ") + what)
def derive(seed, fields, shuffle, n, sides):
    """The values of a roll (n dice of sides faces) or a shuffle of n, as docs/dice.md says."""
    stream = (b for k in range(1 << 32) for b in hmac.new(seed, b"".join(map(F, fields)) + k.to_bytes(4, "big"), "sha256").digest())
    die = lambda s: next(b % s + 1 for b in stream if b < 256 - 256 % s)
    if not shuffle: return [die(sides) for _ in range(n)]
    p = list(range(n))
    for j in range(n - 1, 0, -1): r = die(j + 1) - 1; p[j], p[r] = p[r], p[j]
    return p
seeds = {}
for t, s, c in re.findall(r"Turn (\d+): seed \(32 bytes, written in hex\)\n  (\w+)\n.*\n  (\w+)", text):
    seeds[t] = bytes.fromhex(s)
    check(H(seeds[t]) == c and re.search(r"Turn %s: seed drawn; SHA-256 of its 32 bytes:\n  %s" % (t, c), text), "seed of turn " + t)
for what, lines, salt, c in re.findall(r"(?m)^(.+), text:\n((?:    .*\n)+)  salt \(.*\): (\w*)\n.*\n  (\w+)", text):
    plain = re.sub(r"\n      ", " ", lines).replace("\n    ", "\n")[4:-1]
    check(H((plain + "|" + salt).encode()) == c, what)
for plain, salt, c in re.findall(r'(?m)^(\S.*)\n  salt (\w{32}); SHA-256 of line, "\|", salt:\n  (\w{64})$', text):
    check(H((plain + "|" + salt).encode()) == c, plain)
for plain, salt in re.findall(r"(?m)^(\S.*) \(salt (\w{32})\)$", text):  # one line: its commitment mailed before
    check(H((plain + "|" + salt).encode()) in text, plain)
for g, lst in re.findall(r"Sealed in one mail, the other side told the commitment\n  (\w+)\nSHA-256 of these commitments, one a line:\n((?:  \w{64}\n?)+)", text):
    # The notice to the other side gave g; to the side that sealed them, its order check.
    check(H("\n".join(lst.split()).encode()) == g and re.search(r"(?:one a line:\n  |commitment for them all:\n    )%s\n" % g, text), "sealed orders of one mail: " + g[:16])
game = field(re.search(r'(?m)^Game "([^"]*)"', text).group(1))
joined = re.sub(r"\n    (?=\S)", " ", text)  # a record's continuation lines stand for one space
beacon_game = "This game plays with the beacon:" in text
BEACON = r'(?:  beacon: drand quicknet round (\d+), signature \(the two lines joined\):\n  (\w{48})\n  (\w{48})\n)?'
def roll_check(t, phase, digest, rnd, s1, s2, i, n, sides, deck, vals, rule, purpose):
    """Re-derives one roll: message version 1, or 2 with its beacon round (docs/dice.md)."""
    fields = [b"adjutant-dice-v1", game, t.encode(), field(phase), i.encode(), b"shuffle" if deck else b"roll",
              field(purpose), field(rule), (deck or n).encode(), (sides or "0").encode(), digest.encode()]
    if rnd:  # version 2: the round and its randomness, SHA-256 of its signature, follow
        fields = [b"adjutant-dice-v2"] + fields[1:] + [rnd.encode(), H(bytes.fromhex(s1 + s2)).encode()]
    got = derive(seeds[t], fields, bool(deck), int(deck or n), int(sides or 0))
    check(got == [int(v) for v in vals.split()], "turn %s phase %s index %s: %s" % (t, phase, i, vals))
def rounded(t, phase, rnd):
    if beacon_game and not rnd:
        check(False, "turn %s phase %s: no beacon round in a game played with the beacon" % (t, phase))
for t, phase, digest, rnd, s1, s2, rolls in re.findall(r'Turn (\d+), phase "([^"]*)", orders digest:\n  (\w+)\n' + BEACON + r'((?:  .*index .*\n?)+)', joined):
    rounded(t, phase, rnd)
    for i, n, sides, deck, vals, rule, purpose in re.findall(r'index (\d+): (?:(\d+)d(\d+)|shuffle of (\d+)) -> \[([\d ]*)\].*?, rule "([^"]*)", purpose "([^"]*)"', rolls):
        if t in seeds: roll_check(t, phase, digest, rnd, s1, s2, i, n, sides, deck, vals, rule, purpose)
# The compact form: under a phase's header (and its beacon round), a kind line
# "  1d6, rule "10.8":", then rolls "  0 [6] "purpose"" (a modifier, not hashed, may follow).
for t, phase, digest, rnd, s1, s2, block in re.findall(r'Turn (\d+), phase "([^"]*)", orders digest:\n  (\w+)\n' + BEACON + r'((?:  (?:\d+d\d+|shuffle of \d+), rule .*\n?(?:  \d+ \[.*\n?)*)+)', joined):
    rounded(t, phase, rnd)
    if t not in seeds: continue
    for n, sides, deck, rule, rolls in re.findall(r'  (?:(\d+)d(\d+)|shuffle of (\d+)), rule "([^"]*)":\n((?:  \d+ \[.*\n?)*)', block):
        for i, vals, purpose in re.findall(r'(?m)^  (\d+) \[([\d ]*)\](?: [+-]\d+)? "([^"]*)"$', rolls):
            roll_check(t, phase, digest, rnd, s1, s2, i, n, sides, deck, vals, rule, purpose)
# Sealed card decks: a deck's order is its shuffles' orders one after the other; shuffle k
# is the shuffle of its cards with turn 0, phase "deck " + the deck, index k, no orders
# digest, under the deck seed; position j of it holds the card at the permutation's j-th value.
m = re.search(r"Deck seed \(32 bytes, written in hex\), revealed at the end of the game\n  (\w+)\n.*\n  (\w+)", text)
if m:
    dseed = bytes.fromhex(m.group(1))
    check(H(dseed) == m.group(2) and re.search(r"Deck seed drawn, sealed until the game ends; SHA-256 of its 32 bytes:\n  %s" % m.group(2), text), "deck seed")
    shuffles, order = {}, {}
    for deck, k, n, cards, rule, purpose in re.findall(r'deck "([^"]*)" shuffle (\d+) of (\d+) cards \[([^\]]*)\], rule "([^"]*)", purpose "([^"]*)"', joined):
        shuffles[(field(deck), int(k))] = (cards.split(), field(rule), field(purpose))
    for (deck, k) in sorted(shuffles):
        cards, rule, purpose = shuffles[(deck, k)]
        fields = [b"adjutant-dice-v1", game, b"0", b"deck " + deck, str(k).encode(), b"shuffle", purpose, rule, str(len(cards)).encode(), b"0", b""]
        order.setdefault(deck, []).extend(cards[j] for j in derive(dseed, fields, True, len(cards), 0))
    for deck, k, card in sorted(set(re.findall(r'deck "([^"]*)" card (\d+): (\S+), rule', joined))):
        d = order.get(field(deck), [])
        check(int(k) < len(d) and d[int(k)] == card, "deck %s card %s: %s" % (deck, k, card))
sys.exit(1 if bad else 0)
