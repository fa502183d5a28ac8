package main

import (
	"flag"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"strings"

	"github.com/adjutant-pbem/adjutant/adjudicator"
	"github.com/adjutant-pbem/adjutant/adjudicator/rulesets"
	"github.com/adjutant-pbem/adjutant/store"
)

// common flags of the commands that open a store. The game mailbox address and the bbolt
// file are the ones `serve` uses when --config names its file: the address is written
// into every invitation ("send your orders to ..."), so a game created with one address
// and served from another would send players to a mailbox nobody reads.
type common struct {
	db      string
	address string
	config  string
	fs      *flag.FlagSet
	// Settled by resolve: the control socket of a daemon serving db, and the host's
	// address and password hash for host commands by mail.
	socket       string
	hostAddress  string
	hostPassHash string
	club         adjudicator.Club         // the config's [club]; the zero value without --config
	beacon       adjudicator.BeaconSource // the configuration's [beacon]
	resolved     bool
	addressTaken bool // the command's --address is not the game mailbox's
}

// defaultAddress is the game mailbox address of pipe mode when neither --config,
// --address nor ADJUTANT_ADDRESS gives one.
const defaultAddress = "adjutant@localhost"

func (c *common) register(fs *flag.FlagSet) {
	c.fs = fs
	fs.StringVar(&c.config, "config", "", "the daemon's configuration file: its address and database are used (see adjutant config sample)")
	fs.StringVar(&c.db, "db", "", "the bbolt file of the games (required without --config)")
	if fs.Lookup("address") != nil {
		// The command's own --address (adjutant player: the player's new address): the
		// game mailbox then comes from --config, ADJUTANT_ADDRESS or the default.
		c.addressTaken = true
		return
	}
	fs.StringVar(&c.address, "address", "", "the game mailbox address, From of every mail (env ADJUTANT_ADDRESS; default "+defaultAddress+"; with --config, the file's address)")
}

// resolve settles the address and the bbolt file after the flags were parsed: from the
// configuration file when there is one (refusing a --db, --address or ADJUTANT_ADDRESS
// that says otherwise), else from the flags, the environment and the default.
func (c *common) resolve() error {
	if c.resolved {
		return nil
	}
	c.resolved = true
	set := map[string]bool{}
	c.fs.Visit(func(f *flag.Flag) { set[f.Name] = true })
	if c.addressTaken {
		delete(set, "address")
	}
	envAddr := os.Getenv("ADJUTANT_ADDRESS")
	if c.config == "" {
		switch {
		case set["address"]:
		case envAddr != "":
			c.address = envAddr
		default:
			c.address = defaultAddress
		}
		if c.db == "" {
			return usageError("--db (or --config) is required")
		}
		c.socket = c.db + ".sock"
		return nil
	}
	cfg, err := loadStoreConfig(c.config)
	if err != nil {
		return err
	}
	given, from := c.address, "--address"
	if !set["address"] {
		given, from = envAddr, "ADJUTANT_ADDRESS"
	}
	if given != "" && !strings.EqualFold(given, cfg.Address) {
		return fmt.Errorf("%s %s disagrees with address %s in %s: invitations would name one mailbox and serve would send from the other; drop %s or change the file",
			from, given, cfg.Address, c.config, from)
	}
	if set["db"] && !samePath(c.db, cfg.Database) {
		return fmt.Errorf("--db %s disagrees with database %s in %s: drop --db or change the file", c.db, cfg.Database, c.config)
	}
	c.address, c.db = cfg.Address, cfg.Database
	c.socket, c.hostAddress, c.hostPassHash = cfg.socketPath(), cfg.HostAddress, cfg.HostPassword
	c.club = cfg.Club.desk()
	c.beacon = cfg.Beacon.source()
	return nil
}

// samePath says whether two file names name the same file, as far as their text goes.
func samePath(a, b string) bool {
	aa, err1 := filepath.Abs(a)
	bb, err2 := filepath.Abs(b)
	return err1 == nil && err2 == nil && aa == bb
}

func newFlags(e *env, name string) *flag.FlagSet {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.SetOutput(e.stderr)
	return fs
}

// openStore settles the settings (see resolve) and opens the store.
func (c *common) openStore() (*store.DB, error) {
	if err := c.resolve(); err != nil {
		return nil, err
	}
	return store.Open(c.db)
}

// open opens the store and builds the desk around it.
func (c *common) open(e *env) (*adjudicator.Desk, *store.DB, error) {
	db, err := c.openStore()
	if err != nil {
		return nil, nil, err
	}
	rs, err := rulesets.All()
	if err != nil {
		db.Close()
		return nil, nil, err
	}
	key, err := store.LoadKey(c.db + ".key")
	if err != nil {
		db.Close()
		return nil, nil, err
	}
	desk := &adjudicator.Desk{
		PasswordKey:  key,
		Store:        db,
		Rulesets:     rs,
		Address:      c.address,
		Now:          e.now,
		Rand:         e.random,
		PasswordCost: e.cost,
		Log:          slog.New(slog.NewTextHandler(e.stderr, &slog.HandlerOptions{Level: slog.LevelWarn})),
		HostAddress:  c.hostAddress,
		HostPassHash: c.hostPassHash,
		Club:         c.club,
		Beacon:       c.beacon,
	}
	if e.beacon != nil {
		desk.Beacon = e.beacon
	}
	return desk, db, nil
}

type pairs map[string]string

func (p pairs) String() string { return fmt.Sprint(map[string]string(p)) }
func (p pairs) Set(v string) error {
	k, val, ok := strings.Cut(v, "=")
	if !ok || k == "" || val == "" {
		return fmt.Errorf("%q: expected side=value", v)
	}
	p[strings.ToLower(k)] = val
	return nil
}

type list []string

func (l *list) String() string     { return strings.Join(*l, ",") }
func (l *list) Set(v string) error { *l = append(*l, v); return nil }
