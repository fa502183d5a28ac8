#!/usr/bin/env python3
"""Check Adjutant's dice from the mails of one game: python3 checkdice.py MAIL.txt ...
(the mails saved as text, oldest first). Re-derives every roll whose seed has been
revealed, and checks every seed and revealed sealed order against its commitment.
The rules it follows are in docs/dice.md. Python 3 standard library only."""
import hashlib, hmac, re, sys, urllib.parse
text = "\n".join(open(f, encoding="utf-8").read() for f in sys.argv[1:]).replace("\r\n", "\n")
H = lambda b: hashlib.sha256(b).hexdigest()
F = lambda b: len(b).to_bytes(4, "big") + b  # a length-prefixed field
field = urllib.parse.unquote_to_bytes  # undoes the %XX escapes of quoted fields
bad = 0
def check(ok, what):
    global bad; bad += not ok; print(("ok   " if ok else "BAD  ") + what)
seeds = {}
for t, s, c in re.findall(r"Turn (\d+): seed \(32 bytes, written in hex\)\n  (\w+)\n.*\n  (\w+)", text):
    seeds[t] = bytes.fromhex(s)
    check(H(seeds[t]) == c and re.search(r"Turn %s: seed drawn; SHA-256 of its 32 bytes:\n  %s" % (t, c), text), "seed of turn " + t)
for what, lines, salt, c in re.findall(r"(?m)^(.+), text:\n((?:    .*\n)+)  salt \(.*\): (\w*)\n.*\n  (\w+)", text):
    plain = re.sub(r"\n      ", " ", lines).replace("\n    ", "\n")[4:-1]
    check(H((plain + "|" + salt).encode()) == c, what)
game = field(re.search(r'(?m)^Game "([^"]*)"', text).group(1))
joined = re.sub(r"\n    (?=\S)", " ", text)  # a record's continuation lines stand for one space
for t, phase, digest, rolls in re.findall(r'Turn (\d+), phase "([^"]*)", orders digest:\n  (\w+)\n((?:  .*index .*\n?)+)', joined):
    for i, n, sides, deck, vals, rule, purpose in re.findall(r'index (\d+): (?:(\d+)d(\d+)|shuffle of (\d+)) -> \[([\d ]*)\].*?, rule "([^"]*)", purpose "([^"]*)"', rolls):
        if t not in seeds: continue
        fields = [b"adjutant-dice-v1", game, t.encode(), field(phase), i.encode(), b"shuffle" if deck else b"roll",
                  field(purpose), field(rule), (deck or n).encode(), (sides or "0").encode(), digest.encode()]
        stream = (b for k in range(1 << 32) for b in hmac.new(seeds[t], b"".join(map(F, fields)) + k.to_bytes(4, "big"), "sha256").digest())
        die = lambda s: next(b % s + 1 for b in stream if b < 256 - 256 % s)
        if deck:
            got = list(range(int(deck)))
            for j in range(int(deck) - 1, 0, -1): r = die(j + 1) - 1; got[j], got[r] = got[r], got[j]
        else: got = [die(int(sides)) for _ in range(int(n))]
        check(got == [int(v) for v in vals.split()], "turn %s phase %s index %s: %s" % (t, phase, i, vals))
sys.exit(1 if bad else 0)
