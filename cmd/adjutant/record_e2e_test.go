//go:build e2e

package main

// record.html in a real browser: Debian's chromium, headless, which `make e2e`
// installs (e2e/chromium.sh). Without chromium the test fails: it is part of e2e.

import (
	"bytes"
	"context"
	"fmt"
	"image/png"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// chromium runs headless chromium on url with args, every request to the network sent
// through proxy (which counts them) and every host name unresolvable.
func chromium(t *testing.T, browser, proxy, profile string, args ...string) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), 90*time.Second)
	defer cancel()
	all := append([]string{
		"--headless", "--no-sandbox", "--disable-gpu", "--hide-scrollbars", "--no-first-run",
		"--disable-background-networking", "--disable-component-update", "--disable-sync",
		"--disable-default-apps", "--no-default-browser-check", "--user-data-dir=" + profile,
		// Every request to the network goes to the counting proxy, loopback included.
		"--proxy-server=" + proxy, "--proxy-bypass-list=<-loopback>",
		"--host-resolver-rules=MAP * ~NOTFOUND , EXCLUDE 127.0.0.1",
	}, args...)
	cmd := exec.CommandContext(ctx, browser, all...)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	if err := cmd.Run(); err != nil {
		t.Fatalf("%s %s: %v\n%s", browser, strings.Join(args, " "), err, errb.String())
	}
	return out.String()
}

// chromiumService are the hosts Chromium calls on its own, whatever the page, even
// with --disable-background-networking (its updater, clock and account services): the
// requests to them are not the page's. Any other host counts, fonts.googleapis.com and
// the like included.
var chromiumService = map[string]bool{
	"update.googleapis.com": true, "clients2.google.com": true, "accounts.google.com": true,
	"optimizationguide-pa.googleapis.com": true, "clientservices.googleapis.com": true,
	"safebrowsingohttpgateway.googleapis.com": true, "redirector.gvt1.com": true, "edgedl.me.gvt1.com": true,
}

// TestRecordInChromium (issue 24): record.html of a finished demo game opens in headless
// Chromium without any request to the network, steps to its first and last phase (a
// screenshot of each, 400 pixels wide, different), and shows the verdict. A page with
// one external picture, opened the same way, is caught: the check can fail.
func TestRecordInChromium(t *testing.T) {
	browser := os.Getenv("ADJUTANT_E2E_CHROMIUM")
	if browser == "" {
		var err error
		if browser, err = exec.LookPath("chromium"); err != nil {
			t.Fatalf("chromium is not installed (make e2e installs it with cmd/adjutant/e2e/chromium.sh): %v", err)
		}
	}
	var (
		requests atomic.Int64
		mu       sync.Mutex
		seen     []string
	)
	proxy := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		host := r.URL.Hostname()
		if host == "" {
			host, _, _ = strings.Cut(r.Host, ":") // CONNECT host:443
		}
		if !chromiumService[host] {
			requests.Add(1)
			mu.Lock()
			seen = append(seen, r.Method+" "+r.URL.String()+" "+r.Host)
			mu.Unlock()
		}
		http.Error(w, "no network for a record", http.StatusForbidden)
	}))
	defer proxy.Close()

	dir := t.TempDir()
	db := filepath.Join(dir, "demo.db")
	mustCLI(t, nil, "demo", "--pipe", "--quiet", "--db", db)
	files := exportRecord(t, db, sampleGame, "us")
	page := filepath.Join(dir, "page", "record.html") // alone in its folder: nothing beside it to load
	os.MkdirAll(filepath.Dir(page), 0o700)
	html := files["record.html"]
	if err := os.WriteFile(page, html, 0o600); err != nil {
		t.Fatal(err)
	}
	for _, m := range regexp.MustCompile(`(?i)\b(src|href)\s*=\s*"([^"]*)"`).FindAllSubmatch(html, -1) {
		v := string(m[2])
		if strings.EqualFold(string(m[1]), "src") && !strings.HasPrefix(v, "data:image/png;base64,") ||
			strings.EqualFold(string(m[1]), "href") && !strings.HasPrefix(v, "#") {
			t.Errorf("record.html refers to %s=%q: not inside the page", m[1], v)
		}
	}
	last := strings.Count(string(html), `<section class="step"`)
	if last < 2 {
		t.Fatalf("record.html has %d steps", last)
	}
	shots := map[int][]byte{}
	for _, step := range []int{1, last} {
		shot := filepath.Join(dir, fmt.Sprintf("step-%d.png", step))
		chromium(t, browser, proxy.URL, filepath.Join(dir, "profile"), "--window-size=400,900",
			"--screenshot="+shot, fmt.Sprintf("file://%s#step-%d", page, step))
		raw, err := os.ReadFile(shot)
		if err != nil {
			t.Fatal(err)
		}
		img, err := png.Decode(bytes.NewReader(raw))
		if err != nil {
			t.Fatalf("screenshot of step %d: %v", step, err)
		}
		if w := img.Bounds().Dx(); w != 400 {
			t.Errorf("screenshot of step %d is %d pixels wide", step, w)
		}
		shots[step] = raw
		if keep := os.Getenv("ADJUTANT_E2E_SHOTS"); keep != "" {
			os.MkdirAll(keep, 0o755)
			os.WriteFile(filepath.Join(keep, filepath.Base(shot)), raw, 0o644)
		}
	}
	if bytes.Equal(shots[1], shots[last]) {
		t.Error("the first and the last step look the same: the page does not step")
	}
	dom := chromium(t, browser, proxy.URL, filepath.Join(dir, "profile"), "--dump-dom", fmt.Sprintf("file://%s#step-%d", page, last))
	if !regexp.MustCompile(`<p class="verdict" id="verdict">Game over: [^<]*4\.2`).MatchString(dom) {
		t.Errorf("the page as Chromium built it shows no verdict:\n%.2000s", dom)
	}
	if !strings.Contains(dom, fmt.Sprintf(`id="step-%d"`, last)) {
		t.Errorf("the page as Chromium built it lacks step %d", last)
	}
	if n := requests.Load(); n != 0 {
		mu.Lock()
		t.Errorf("record.html made %d requests to the network: %v", n, seen)
		mu.Unlock()
	}

	// The control: a picture from elsewhere is requested, and counted.
	leaky := filepath.Join(dir, "page", "leaky.html")
	os.WriteFile(leaky, []byte(`<!DOCTYPE html><html><body><img src="http://record.example/x.png"></body></html>`), 0o600)
	chromium(t, browser, proxy.URL, filepath.Join(dir, "profile"), "--virtual-time-budget=2000", "--dump-dom", "file://"+leaky)
	if requests.Load() == 0 {
		t.Error("a page with an external picture made no request through the proxy: the check above proves nothing")
	}
}
