package main

import (
	"errors"
	"fmt"
	"net"
	"os"
	"reflect"
	"strings"
	"time"

	"github.com/BurntSushi/toml"
	"github.com/adjutant-pbem/adjutant/adjudicator"
	"github.com/adjutant-pbem/adjutant/adjudicator/dice/beacon"
	"golang.org/x/crypto/bcrypt"
)

// socketPath is the control socket of the daemon that serves this configuration.
func (c *Config) socketPath() string {
	if c.ControlSocket != "" {
		return c.ControlSocket
	}
	return c.Database + ".sock"
}

// Config is the daemon's configuration file. Each field's doc tag is written into the
// sample configuration (`adjutant config sample`), which is generated from this struct.
type Config struct {
	Address        string        `toml:"address" doc:"The game mailbox address: the From of every mail Adjutant sends and the address the invitations give the players (the host commands read it here with --config). Mail from it is never answered." example:"adjutant@example.org"`
	Database       string        `toml:"database" doc:"The bbolt file holding every game, order, roll and queued mail (the host commands open it with --config)." example:"/var/lib/adjutant/adjutant.db"`
	ControlSocket  string        `toml:"control_socket" doc:"The Unix socket (mode 0600) on which serve takes the host commands while it holds the database; a host command finds it here with --config, or next to the --db file. Empty: the database's file name with .sock added." example:""`
	HostAddress    string        `toml:"host_address" doc:"The game host's own address: a mail from it with a line HOST PASSWORD carries host commands (GAMES, EXTEND, PAUSE, RESUME, END, ADDRESS, RESEND). Empty (as here): no host commands by mail; e.g. host@example.org." example:""`
	HostPassword   string        `toml:"host_password_hash" doc:"The bcrypt hash of the host password, never the password: 'adjutant config hash-password' reads a password on standard input and prints its hash." example:""`
	PollInterval   Duration      `toml:"poll_interval" doc:"How often to look for new mail when the IMAP server has no IDLE; with IDLE, how often to re-check anyway." example:"30s"`
	TickInterval   Duration      `toml:"tick_interval" doc:"How often to process deadlines and reminders (the same code as 'adjutant tick')." example:"1m"`
	MaxMessageSize int64         `toml:"max_message_size" doc:"Largest mail read, in bytes; a bigger one is refused with a reply and not parsed." example:"1048576"`
	LogLevel       string        `toml:"log_level" doc:"debug, info, warn or error." example:"info"`
	MemoryLimitMiB int64         `toml:"memory_limit_mib" doc:"Soft limit of the Go heap in MiB (default 64): the collector works harder near it. While the live heap is over half of it, the daemon raises it to twice the live heap, so that it never stalls the work. The GOMEMLIMIT environment variable wins; GOMEMLIMIT=off lifts it." example:"64"`
	ArchiveDir     string        `toml:"archive_dir" doc:"Where finished games are archived (adjutant game archive, and serve after archive_after_days): one file a game, GAME.archive.json.gz, which adjutant replay --archive and adjutant audit verify --archive read. Empty: a folder archive beside the database." example:""`
	ArchiveAfter   int           `toml:"archive_after_days" doc:"Days after a game ends before serve archives it (checked at start and once a day): its complete record goes to archive_dir, is checked there, and leaves the live store. Default 30; -1: never (adjutant game archive still does it by hand)." example:"30"`
	CompactAtStart bool          `toml:"compact_at_start" doc:"Compact the database when serve starts (bbolt's Compact into a new file, swapped in), so that the space of archived games is given back; adjutant store compact does it with serve stopped." example:"false"`
	IMAP           IMAPSection   `toml:"imap" doc:"The mailbox players write to."`
	SMTP           SMTPSection   `toml:"smtp" doc:"The submission server Adjutant sends through."`
	Club           ClubSection   `toml:"club" doc:"Games players open, join and observe by mail (NEW, JOIN, LIST, OBSERVE; HELP tells players how)."`
	Beacon         BeaconSection `toml:"beacon" doc:"The public randomness beacon of games created with --dice beacon: drand's quicknet chain (its public key is built in)."`
}

// BeaconSection is the [beacon] table.
type BeaconSection struct {
	URL string `toml:"url" doc:"A drand HTTP relay serving the quicknet chain; every round it serves is verified against quicknet's public key. Empty: no game can be created with --dice beacon, and those in progress wait." example:"https://api.drand.sh"`
}

// source is the beacon of the section, nil when it has no URL.
func (b BeaconSection) source() adjudicator.BeaconSource {
	if b.URL == "" {
		return nil
	}
	return beacon.Source{Schedule: beacon.Quicknet, Client: &beacon.Client{URL: b.URL, Chain: beacon.Quicknet}}
}

// IMAPSection is the [imap] table.
type IMAPSection struct {
	Host         string `toml:"host" doc:"IMAP server host." example:"imap.example.org"`
	Port         int    `toml:"port" doc:"IMAP server port: 993 for tls, 143 for starttls." example:"993"`
	Security     string `toml:"security" doc:"tls, starttls, or none (plain, allowed only on a loopback address)." example:"tls"`
	Username     string `toml:"username" doc:"Login name." example:"adjutant@example.org"`
	Password     string `toml:"password" doc:"Password. Better: password_env or password_file." example:""`
	PasswordEnv  string `toml:"password_env" doc:"Name of an environment variable holding the password." example:"ADJUTANT_IMAP_PASSWORD"`
	PasswordFile string `toml:"password_file" doc:"File holding the password (trailing newline ignored)." example:""`
	Mailbox      string `toml:"mailbox" doc:"The mailbox to watch." example:"INBOX"`
	MoveTo       string `toml:"move_to" doc:"Move handled mail to this folder; empty: only flag it \\Seen." example:"Processed"`
}

// SMTPSection is the [smtp] table.
type SMTPSection struct {
	Host         string `toml:"host" doc:"SMTP submission server host." example:"smtp.example.org"`
	Port         int    `toml:"port" doc:"Port: 465 for tls, 587 for starttls." example:"587"`
	Security     string `toml:"security" doc:"tls, starttls, or none (plain, allowed only on a loopback address)." example:"starttls"`
	Username     string `toml:"username" doc:"Login name; empty: no AUTH, and the password keys are not read." example:"adjutant@example.org"`
	Password     string `toml:"password" doc:"Password. Better: password_env or password_file." example:""`
	PasswordEnv  string `toml:"password_env" doc:"Name of an environment variable holding the password." example:"ADJUTANT_SMTP_PASSWORD"`
	PasswordFile string `toml:"password_file" doc:"File holding the password (trailing newline ignored)." example:""`
	NoVERP       bool   `toml:"no_verp" doc:"Send with the game address itself as envelope sender. By default it is the address with +b-<number>-<tag> added (VERP, the tag signed with the store's secret), so that a bounce says which mail and player it is about and nobody else can forge one; turn this on only if the mailbox does not receive plus-addressed mail (then no bounce marks a player)." example:"false"`
}

// Duration is a time.Duration written as "30s" or "5m" in the file.
type Duration struct{ time.Duration }

// UnmarshalText implements encoding.TextUnmarshaler.
func (d *Duration) UnmarshalText(b []byte) error {
	v, err := time.ParseDuration(string(b))
	if err != nil {
		return fmt.Errorf("%q is not a duration such as 30s or 5m", b)
	}
	d.Duration = v
	return nil
}

// MarshalText implements encoding.TextMarshaler.
func (d Duration) MarshalText() ([]byte, error) { return []byte(d.String()), nil }

// LoadConfig reads and checks a configuration file; an error names the key at fault.
func LoadConfig(path string) (*Config, error) {
	c, err := readConfig(path)
	if err != nil {
		return nil, err
	}
	if err := c.check(); err != nil {
		return nil, fmt.Errorf("config %s: %w", path, err)
	}
	return c, nil
}

// readConfig decodes a configuration file, refusing unknown keys, without checking the
// values.
func readConfig(path string) (*Config, error) {
	c := &Config{}
	md, err := toml.DecodeFile(path, c)
	if err != nil {
		return nil, fmt.Errorf("config %s: %w", path, err)
	}
	if und := md.Undecoded(); len(und) > 0 {
		return nil, fmt.Errorf("config %s: unknown key %s", path, und[0])
	}
	return c, nil
}

// loadStoreConfig reads the two settings the host commands share with serve: the game
// mailbox address and the bbolt file. The mail servers and their passwords are not
// needed to create a game or read the outbox, so they are not checked here.
func loadStoreConfig(path string) (*Config, error) {
	c, err := readConfig(path)
	if err != nil {
		return nil, err
	}
	if err := errors.Join(c.checkStore()...); err != nil {
		return nil, fmt.Errorf("config %s: %w", path, err)
	}
	return c, nil
}

// checkStore checks the settings of [loadStoreConfig].
func (c *Config) checkStore() []error {
	var errs []error
	if !strings.Contains(c.Address, "@") {
		errs = append(errs, errors.New("address: the game mailbox address is required, e.g. adjutant@example.org"))
	}
	if c.Database == "" {
		errs = append(errs, errors.New("database: the bbolt file is required"))
	}
	switch {
	case c.HostAddress != "" && !strings.Contains(c.HostAddress, "@"):
		errs = append(errs, fmt.Errorf("host_address: %q is no address", c.HostAddress))
	case c.HostAddress != "" && strings.EqualFold(c.HostAddress, c.Address):
		errs = append(errs, errors.New("host_address: the game mailbox itself cannot be the host"))
	case c.HostAddress != "" && c.HostPassword == "":
		errs = append(errs, errors.New("host_password_hash: required with host_address (adjutant config hash-password makes one)"))
	}
	errs = append(errs, c.Club.check()...)
	if c.HostPassword != "" {
		if _, err := bcrypt.Cost([]byte(c.HostPassword)); err != nil {
			// The error of bcrypt names no part of the value.
			errs = append(errs, fmt.Errorf("host_password_hash: not a bcrypt hash (adjutant config hash-password makes one): %w", err))
		}
	}
	return errs
}

func (c *Config) check() error {
	if c.PollInterval.Duration == 0 {
		c.PollInterval.Duration = 30 * time.Second
	}
	if c.TickInterval.Duration == 0 {
		c.TickInterval.Duration = time.Minute
	}
	if c.MaxMessageSize == 0 {
		c.MaxMessageSize = 1 << 20
	}
	if c.LogLevel == "" {
		c.LogLevel = "info"
	}
	if c.IMAP.Mailbox == "" {
		c.IMAP.Mailbox = "INBOX"
	}
	errs := c.checkStore()
	bad := func(key, format string, args ...any) {
		errs = append(errs, fmt.Errorf("%s: %s", key, fmt.Sprintf(format, args...)))
	}
	if c.MemoryLimitMiB == 0 {
		c.MemoryLimitMiB = 64
	}
	if c.ArchiveAfter == 0 {
		c.ArchiveAfter = 30
	}
	if c.ArchiveAfter < -1 {
		bad("archive_after_days", "%d: a number of days, or -1 for never", c.ArchiveAfter)
	}
	if c.MemoryLimitMiB < 16 {
		bad("memory_limit_mib", "%d: at least 16 MiB", c.MemoryLimitMiB)
	}
	if c.PollInterval.Duration < time.Second {
		bad("poll_interval", "at least 1s")
	}
	if c.TickInterval.Duration < time.Second {
		bad("tick_interval", "at least 1s")
	}
	if c.MaxMessageSize < 1024 {
		bad("max_message_size", "at least 1024 bytes")
	}
	switch c.LogLevel {
	case "debug", "info", "warn", "error":
	default:
		bad("log_level", "%q: expected debug, info, warn or error", c.LogLevel)
	}
	for _, s := range []struct {
		table                               string
		host                                string
		port                                int
		security                            string
		password, passwordEnv, passwordFile *string
		username                            string
		needPassword                        bool
	}{
		{"imap", c.IMAP.Host, c.IMAP.Port, c.IMAP.Security, &c.IMAP.Password, &c.IMAP.PasswordEnv, &c.IMAP.PasswordFile, c.IMAP.Username, true},
		{"smtp", c.SMTP.Host, c.SMTP.Port, c.SMTP.Security, &c.SMTP.Password, &c.SMTP.PasswordEnv, &c.SMTP.PasswordFile, c.SMTP.Username, c.SMTP.Username != ""},
	} {
		if s.host == "" {
			bad(s.table+".host", "required")
		}
		if s.port < 1 || s.port > 65535 {
			bad(s.table+".port", "%d: expected a port from 1 to 65535", s.port)
		}
		switch s.security {
		case "tls", "starttls":
		case "none":
			if !isLoopback(s.host) {
				bad(s.table+".security", "none (plain text) is allowed only on a loopback address, not %q", s.host)
			}
		default:
			bad(s.table+".security", "%q: expected tls, starttls or none", s.security)
		}
		if s.table == "imap" && s.username == "" {
			bad("imap.username", "required")
		}
		if !s.needPassword {
			// No user, no login: a password the file names (password_env included) is not
			// looked for, so that a host without SMTP AUTH needs no variable set.
			*s.password = ""
			continue
		}
		if err := resolvePassword(s.table, s.password, *s.passwordEnv, *s.passwordFile); err != nil {
			errs = append(errs, err)
		} else if *s.password == "" {
			bad(s.table+".password", "required (or password_env, or password_file)")
		}
	}
	return errors.Join(errs...)
}

// resolvePassword fills *pw from the environment or a file when the config names one.
func resolvePassword(table string, pw *string, env, file string) error {
	n := 0
	for _, v := range []string{*pw, env, file} {
		if v != "" {
			n++
		}
	}
	if n > 1 {
		return fmt.Errorf("%s.password: give only one of password, password_env and password_file", table)
	}
	switch {
	case env != "":
		v, ok := os.LookupEnv(env)
		if !ok || v == "" {
			return fmt.Errorf("%s.password_env: the environment variable %s is not set", table, env)
		}
		*pw = v
	case file != "":
		b, err := os.ReadFile(file)
		if err != nil {
			return fmt.Errorf("%s.password_file: %w", table, err)
		}
		*pw = strings.TrimRight(string(b), "\r\n")
	}
	return nil
}

func isLoopback(host string) bool {
	if host == "localhost" {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

// SampleConfig writes an annotated sample configuration generated from [Config].
func SampleConfig() string {
	var b strings.Builder
	b.WriteString("# Adjutant daemon configuration (adjutant serve --config FILE).\n# Generated by 'adjutant config sample' from the Config struct; every key is shown.\n")
	sampleTable(&b, reflect.TypeOf(Config{}), "")
	return b.String()
}

func sampleTable(b *strings.Builder, t reflect.Type, prefix string) {
	var tables []reflect.StructField
	for i := 0; i < t.NumField(); i++ {
		f := t.Field(i)
		if f.Type.Kind() == reflect.Struct && f.Type != reflect.TypeOf(Duration{}) {
			tables = append(tables, f)
			continue
		}
		fmt.Fprintf(b, "\n# %s\n%s = %s\n", f.Tag.Get("doc"), f.Tag.Get("toml"), sampleValue(f))
	}
	for _, f := range tables {
		name := prefix + f.Tag.Get("toml")
		fmt.Fprintf(b, "\n# %s\n[%s]\n", f.Tag.Get("doc"), name)
		sampleTable(b, f.Type, name+".")
	}
}

func sampleValue(f reflect.StructField) string {
	ex := f.Tag.Get("example")
	switch f.Type.Kind() {
	case reflect.Int, reflect.Int64, reflect.Bool, reflect.Slice:
		return ex
	}
	return fmt.Sprintf("%q", ex)
}
