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

func TestConfigErrorsNameTheKey(t *testing.T) {
	base := `address = "a@example.org"
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
