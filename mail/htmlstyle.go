package mail

import (
	"regexp"
	"strconv"
	"strings"
)

// What of an HTML mail a reader does not see is not read either: a RESIGN in a
// display:none span, in white on white or at font-size 0 would otherwise be executed
// without the player ever having seen it in the mail he sent (or forwarded). The rules
// below decide what CSS hides, from the style attributes, the hidden attribute, the
// colour attributes and the simple rules of <style> elements (by tag, class and id).
//
// Not covered: selectors with attributes or pseudo-classes, !important fights between
// rules, inherited styles through external style sheets, text hidden by a picture over
// it, and colours too close to tell apart that differ by more than a few steps.
// aria-hidden is not hiding: a screen reader skips the text, the eye sees it.

// rgb is a colour; ok says it was given at all. transparent is alpha 0.
type rgb struct {
	r, g, b     int
	ok          bool
	transparent bool
}

// frame is the state of one open element: what it and its descendants show.
type frame struct {
	name string
	// none: the element is not shown at all (display:none, hidden, opacity 0, a box of
	// size 0 that clips its content, mso-hide:all); no descendant can undo it.
	none bool
	// invisible (visibility:hidden) and tiny (font-size near 0) are inherited, and a
	// descendant may set them back.
	invisible, tiny bool
	color, bg       rgb
}

// visible reports whether text written in f is seen: white text on an unset background
// is white on white, since mail clients show a white page.
func (f *frame) visible() bool {
	if f.none || f.invisible || f.tiny || f.color.transparent {
		return false
	}
	bg := f.bg
	if !bg.ok || bg.transparent {
		bg = rgb{255, 255, 255, true, false}
	}
	fg := f.color
	if !fg.ok {
		fg = rgb{0, 0, 0, true, false}
	}
	return !nearColor(fg, bg)
}

// nearColor reports whether two colours are too close to read one on the other.
func nearColor(a, b rgb) bool {
	d := func(x, y int) int {
		if x > y {
			return x - y
		}
		return y - x
	}
	return d(a.r, b.r) <= 24 && d(a.g, b.g) <= 24 && d(a.b, b.b) <= 24
}

// applyStyle applies CSS declarations ("color: #fff; display: none") to f.
func (f *frame) applyStyle(decls string) {
	decls = cssComment.ReplaceAllString(decls, " ")
	var zeroBox, clips bool
	for decl := range strings.SplitSeq(decls, ";") {
		prop, val, ok := strings.Cut(decl, ":")
		if !ok {
			continue
		}
		prop = strings.ToLower(strings.TrimSpace(prop))
		val = strings.ToLower(strings.TrimSpace(val))
		val = strings.TrimSpace(strings.TrimSuffix(val, "!important"))
		switch prop {
		case "display":
			if val == "none" {
				f.none = true
			}
		case "visibility":
			f.invisible = val == "hidden" || val == "collapse"
		case "opacity":
			if n, err := strconv.ParseFloat(strings.TrimSuffix(val, "%"), 64); err == nil {
				if strings.HasSuffix(val, "%") {
					n /= 100
				}
				if n <= 0.1 {
					f.none = true
				}
			}
		case "font-size":
			if px, ok := cssPixels(val); ok {
				f.tiny = px < 3
			}
		case "color":
			if c, ok := parseColor(val); ok {
				f.color = c
			}
		case "background-color", "background":
			for _, word := range strings.Fields(val) {
				if c, ok := parseColor(word); ok {
					f.bg = c
					break
				}
			}
		case "height", "max-height", "width", "max-width":
			if px, ok := cssPixels(val); ok && px < 1 {
				zeroBox = true
			}
		case "overflow", "overflow-x", "overflow-y":
			clips = clips || val == "hidden" || val == "clip"
		case "mso-hide":
			if val == "all" {
				f.none = true
			}
		case "text-indent", "left", "top", "margin-left", "margin-top":
			// Pushed far off the page.
			if px, ok := cssPixels(val); ok && px <= -500 {
				f.none = true
			}
		}
	}
	if zeroBox && clips {
		f.none = true
	}
}

var cssComment = regexp.MustCompile(`(?s)/\*.*?\*/`)

// cssPixels reads a CSS length in pixels (em and rem at 16px, % of 16px); ok is false
// for anything else.
func cssPixels(v string) (float64, bool) {
	units := []struct {
		suffix string
		px     float64
	}{{"px", 1}, {"pt", 4.0 / 3}, {"rem", 16}, {"em", 16}, {"%", 0.16}, {"pc", 16}, {"mm", 3.78}, {"cm", 37.8}, {"in", 96}}
	for _, u := range units {
		if n, ok := strings.CutSuffix(v, u.suffix); ok {
			x, err := strconv.ParseFloat(strings.TrimSpace(n), 64)
			return x * u.px, err == nil
		}
	}
	x, err := strconv.ParseFloat(v, 64)
	return x, err == nil && x == 0 // only 0 may go without a unit
}

// namedColors are the colour names a mail is likely to hide text with.
var namedColors = map[string]rgb{
	"white": {255, 255, 255, true, false}, "black": {0, 0, 0, true, false},
	"snow": {255, 250, 250, true, false}, "ivory": {255, 255, 240, true, false},
	"whitesmoke": {245, 245, 245, true, false}, "ghostwhite": {248, 248, 255, true, false},
	"silver": {192, 192, 192, true, false}, "gray": {128, 128, 128, true, false}, "grey": {128, 128, 128, true, false},
	"red": {255, 0, 0, true, false}, "green": {0, 128, 0, true, false}, "blue": {0, 0, 255, true, false},
	"yellow": {255, 255, 0, true, false}, "navy": {0, 0, 128, true, false}, "maroon": {128, 0, 0, true, false},
	"transparent": {ok: true, transparent: true},
}

var rgbFunc = regexp.MustCompile(`^rgba?\(\s*(\d+)\s*[, ]\s*(\d+)\s*[, ]\s*(\d+)\s*(?:[,/]\s*([\d.]+%?)\s*)?\)$`)

// parseColor reads a CSS or HTML colour: a name, #rgb, #rrggbb (#rrggbbaa), rgb() or
// rgba().
func parseColor(v string) (rgb, bool) {
	v = strings.ToLower(strings.TrimSpace(v))
	if c, ok := namedColors[v]; ok {
		return c, true
	}
	if h, ok := strings.CutPrefix(v, "#"); ok {
		switch len(h) {
		case 3, 4:
			h = string([]byte{h[0], h[0], h[1], h[1], h[2], h[2]})
		case 6, 8:
		default:
			return rgb{}, false
		}
		n, err := strconv.ParseUint(h[:6], 16, 32)
		if err != nil {
			return rgb{}, false
		}
		return rgb{int(n >> 16), int(n >> 8 & 0xff), int(n & 0xff), true, false}, true
	}
	if m := rgbFunc.FindStringSubmatch(v); m != nil {
		c := rgb{ok: true}
		c.r, _ = strconv.Atoi(m[1])
		c.g, _ = strconv.Atoi(m[2])
		c.b, _ = strconv.Atoi(m[3])
		if a := m[4]; a != "" {
			x, _ := strconv.ParseFloat(strings.TrimSuffix(a, "%"), 64)
			if strings.HasSuffix(a, "%") {
				x /= 100
			}
			c.transparent = x <= 0.1
		}
		return c, true
	}
	return rgb{}, false
}

// cssRule is the declarations of one simple selector of a <style> element: a tag, classes
// and an id, all of which an element must have.
type cssRule struct {
	tag     string
	classes []string
	id      string
	decls   string
}

// maxCSSRules bounds the rules kept from a mail's <style> elements.
const maxCSSRules = 500

var cssBlock = regexp.MustCompile(`([^{}]*)\{([^{}]*)\}`)
var simpleSelector = regexp.MustCompile(`^([a-z0-9]*)((?:[.#][a-z0-9_-]+)*)$`)
var selectorPart = regexp.MustCompile(`[.#][a-z0-9_-]+`)

// parseCSS adds the rules of a style sheet that a mail's elements can match: for each
// selector, its last compound (".outer .x" counts as ".x", which hides more rather than
// less); selectors with attributes or pseudo-classes are left out.
func parseCSS(rules []cssRule, sheet string) []cssRule {
	sheet = cssComment.ReplaceAllString(strings.ToLower(sheet), " ")
	for _, m := range cssBlock.FindAllStringSubmatch(sheet, -1) {
		for sel := range strings.SplitSeq(m[1], ",") {
			f := strings.Fields(sel)
			if len(f) == 0 || len(rules) >= maxCSSRules {
				continue
			}
			s := simpleSelector.FindStringSubmatch(strings.TrimPrefix(f[len(f)-1], ">"))
			if s == nil || (s[1] == "" && s[2] == "") {
				continue
			}
			r := cssRule{tag: s[1], decls: m[2]}
			for _, part := range selectorPart.FindAllString(s[2], -1) {
				if part[0] == '#' {
					r.id = part[1:]
				} else {
					r.classes = append(r.classes, part[1:])
				}
			}
			rules = append(rules, r)
		}
	}
	return rules
}

// key is where r is filed for the elements to find it: by id, first class, or tag.
func (r cssRule) key() string {
	switch {
	case r.id != "":
		return "#" + r.id
	case len(r.classes) > 0:
		return "." + r.classes[0]
	}
	return r.tag
}

// matches reports whether an element of tag with the given classes and id is one r is for.
func (r cssRule) matches(tag string, classes []string, id string) bool {
	if (r.tag != "" && r.tag != tag) || (r.id != "" && r.id != id) {
		return false
	}
	for _, c := range r.classes {
		found := false
		for _, have := range classes {
			found = found || have == c
		}
		if !found {
			return false
		}
	}
	return true
}
