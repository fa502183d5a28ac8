package main

import (
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

var update = flag.Bool("update", false, "rewrite golden files")

// TestSampleConfigInRepo keeps the committed sample equal to the one generated from the
// Config struct, and proves that the sample itself loads.
func TestSampleConfigInRepo(t *testing.T) {
	got := SampleConfig()
	if *update {
		os.WriteFile("adjutant.sample.toml", []byte(got), 0o644)
	}
	want, err := os.ReadFile("adjutant.sample.toml")
	if err != nil || string(want) != got {
		t.Fatalf("adjutant.sample.toml is not what 'adjutant config sample' prints; run go test ./cmd/adjutant -run SampleConfig -update")
	}
	for _, key := range []string{"address", "database", "poll_interval", "max_message_size", "[imap]", "move_to", "[smtp]", "password_env"} {
		if !strings.Contains(got, key) {
			t.Errorf("sample lacks %s", key)
		}
	}
	t.Setenv("ADJUTANT_IMAP_PASSWORD", "secret-i")
	t.Setenv("ADJUTANT_SMTP_PASSWORD", "secret-s")
	cfg, err := LoadConfig("adjutant.sample.toml")
	if err != nil {
		t.Fatalf("the sample does not load: %v", err)
	}
	if cfg.IMAP.Password != "secret-i" || cfg.SMTP.Password != "secret-s" || cfg.PollInterval.Seconds() != 30 {
		t.Errorf("sample loaded as %+v", cfg)
	}
}

// minimalConfig is a valid configuration with no optional key: loopback servers, an IMAP
// password in the file, no SMTP user.
const minimalConfig = `address = "a@example.org"
database = "/tmp/x.db"
[imap]
host = "127.0.0.1"
port = 1143
security = "none"
username = "a@example.org"
password = "p"
[smtp]
host = "127.0.0.1"
port = 1025
security = "none"
`

func TestConfigErrorsNameTheKey(t *testing.T) {
	base := minimalConfig
	dir := t.TempDir()
	pwfile := filepath.Join(dir, "pw")
	os.WriteFile(pwfile, []byte("from-file\n"), 0o600)
	tests := []struct {
		name, replace, with, wantErr string
	}{
		{"valid", "", "", ""},
		{"missing address", `address = "a@example.org"`, ``, "address:"},
		{"plain to a remote host", "host = \"127.0.0.1\"\nport = 1025\nsecurity = \"none\"", "host = \"smtp.example.org\"\nport = 1025\nsecurity = \"none\"", "smtp.security: none"},
		{"bad security", `security = "none"` + "\nusername", `security = "ssl"` + "\nusername", `imap.security: "ssl"`},
		{"bad port", "port = 1143", "port = 0", "imap.port"},
		{"unknown key", `database = "/tmp/x.db"`, `database = "/tmp/x.db"` + "\ncolour = \"blue\"", "unknown key colour"},
		{"bad duration", `database = "/tmp/x.db"`, `database = "/tmp/x.db"` + "\npoll_interval = \"soon\"", "duration"},
		{"two passwords", `password = "p"`, `password = "p"` + "\npassword_file = \"" + pwfile + "\"", "imap.password: give only one"},
		{"env not set", `password = "p"`, `password_env = "ADJUTANT_TEST_UNSET_VARIABLE"`, "imap.password_env"},
		{"no password", `password = "p"`, ``, "imap.password: required"},
		{"missing file", `password = "p"`, `password_file = "/nonexistent/pw"`, "imap.password_file"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			text := base
			if tt.replace != "" {
				if !strings.Contains(text, tt.replace) {
					t.Fatalf("test setup: %q not in base", tt.replace)
				}
				text = strings.Replace(text, tt.replace, tt.with, 1)
			}
			path := filepath.Join(t.TempDir(), "c.toml")
			os.WriteFile(path, []byte(text), 0o600)
			cfg, err := LoadConfig(path)
			if tt.wantErr == "" {
				if err != nil || cfg.MaxMessageSize != 1<<20 || cfg.IMAP.Mailbox != "INBOX" {
					t.Fatalf("LoadConfig = %+v, %v; want defaults filled", cfg, err)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
				t.Errorf("LoadConfig error = %v, want it to name %q", err, tt.wantErr)
			}
		})
	}
	// A password from a file, trailing newline dropped.
	path := filepath.Join(dir, "f.toml")
	os.WriteFile(path, []byte(strings.Replace(base, `password = "p"`, `password_file = "`+pwfile+`"`, 1)), 0o600)
	if cfg, err := LoadConfig(path); err != nil || cfg.IMAP.Password != "from-file" {
		t.Errorf("password_file: %v %v", cfg, err)
	}
}

// TestConfigCheckLogsIn: `config check` logs in to the IMAP and the SMTP server of the
// file and says, for each, whether it worked and why not, against the embedded servers
// with right and wrong passwords. No SMTP password is needed without an SMTP user.
func TestConfigCheckLogsIn(t *testing.T) {
	srv, err := demoServers()
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	const wrong = "wrong-password-for-the-check"
	imapOK := "IMAP " + srv.IMAPAddr() + " (none): logged in as " + sampleAddress + "; INBOX holds 0 messages"
	imapBad := "IMAP " + srv.IMAPAddr() + " (none): FAILED: IMAP login refused for user " + sampleAddress + " at " + srv.IMAPAddr() + ": NO [AUTHENTICATIONFAILED]"
	smtpAnon := "SMTP " + srv.SMTPAddr() + " (none): connected; no login (smtp.username is empty)"
	smtpOK := "SMTP " + srv.SMTPAddr() + " (none): logged in as " + sampleUS
	smtpBad := "SMTP " + srv.SMTPAddr() + " (none): FAILED: SMTP login refused for user " + sampleUS + " at " + srv.SMTPAddr() + ": 535"
	for _, tc := range []struct {
		name               string
		imapPass, smtpUser string
		smtpPass           string
		wantCode           int
		want               []string
		wantErr            string
	}{
		{"both right, no SMTP user", "game-mailbox-password", "", "", 0, []string{imapOK, smtpAnon, "move_to Processed does not exist yet: serve creates it"}, ""},
		{"SMTP user, right password", "game-mailbox-password", sampleUS, samplePassUS + "-mail", 0, []string{imapOK, smtpOK}, ""},
		{"wrong IMAP password", wrong, "", "", 1, []string{imapBad, smtpAnon}, "the IMAP check failed"},
		{"wrong SMTP password", "game-mailbox-password", sampleUS, wrong, 1, []string{imapOK, smtpBad}, "the SMTP check failed"},
		{"both wrong", wrong, sampleUS, wrong, 1, []string{imapBad, smtpBad}, "the IMAP and the SMTP check failed"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cfg := demoConfig(srv, filepath.Join(t.TempDir(), "g.db"))
			cfg.IMAP.Password, cfg.SMTP.Username, cfg.SMTP.Password = tc.imapPass, tc.smtpUser, tc.smtpPass
			path := filepath.Join(t.TempDir(), "adjutant.toml")
			writeConfig(t, path, cfg)
			code, out, errs := cli(t, nil, "config", "check", "--config", path)
			if code != tc.wantCode {
				t.Errorf("exit %d, want %d\nstdout: %s\nstderr: %s", code, tc.wantCode, out, errs)
			}
			for _, w := range append(tc.want, path+" is valid") {
				if !strings.Contains(out, w) {
					t.Errorf("stdout lacks %q:\n%s", w, out)
				}
			}
			if !strings.Contains(errs, tc.wantErr) || tc.wantErr == "" && errs != "" {
				t.Errorf("stderr %q, want %q", errs, tc.wantErr)
			}
			if strings.Contains(out+errs, wrong) {
				t.Errorf("the output shows the password:\n%s%s", out, errs)
			}
		})
	}
	if srv.Accepted() != 0 {
		t.Errorf("config check sent %d mails, want none", srv.Accepted())
	}
	// --offline checks the file only.
	cfg := demoConfig(srv, filepath.Join(t.TempDir(), "g.db"))
	cfg.IMAP.Port = 1 // nobody listens
	path := filepath.Join(t.TempDir(), "adjutant.toml")
	writeConfig(t, path, cfg)
	if code, out, _ := cli(t, nil, "config", "check", "--offline", "--config", path); code != 0 || strings.Contains(out, "IMAP") {
		t.Errorf("config check --offline: exit %d, %q", code, out)
	}
	if code, out, _ := cli(t, nil, "config", "check", "--config", path); code != 1 || !strings.Contains(out, "IMAP 127.0.0.1:1 (none): FAILED: imap: dial") {
		t.Errorf("config check with nobody at the IMAP port: exit %d, %q", code, out)
	}
}

// TestNoSMTPPasswordWithoutUser: without an SMTP user the file needs no SMTP password,
// even when it names a variable that is not set (the sample's password_env, say).
func TestNoSMTPPasswordWithoutUser(t *testing.T) {
	text := minimalConfig + `password_env = "ADJUTANT_TEST_UNSET_SMTP_PASSWORD"
`
	path := filepath.Join(t.TempDir(), "c.toml")
	os.WriteFile(path, []byte(text), 0o600)
	if _, err := LoadConfig(path); err != nil {
		t.Errorf("no SMTP user, an unset password_env: %v, want the file accepted", err)
	}
	os.WriteFile(path, []byte(strings.Replace(text, `password_env =`, `username = "a@example.org"`+"\npassword_env =", 1)), 0o600)
	if _, err := LoadConfig(path); err == nil || !strings.Contains(err.Error(), "smtp.password_env") {
		t.Errorf("an SMTP user with an unset password_env: %v, want smtp.password_env named", err)
	}
}
