package mapimage_test

import (
	"bytes"
	"encoding/json"
	"testing"

	"github.com/adjutant-pbem/adjutant/adjudicator/mapimage"
	"github.com/adjutant-pbem/adjutant/adjudicator/rulesets"
)

// restoreMaps gives mapimage the maps compiled in again, as the rulesets' package
// gives them when it is loaded.
func restoreMaps() { mapimage.RegisterMaps(rulesets.Maps) }

// TestSceneNamesItsMap: a scene of a ruleset's map (compiled into the binary) names
// the map by its digest and does not carry it: a results mail's two scenes weigh a
// fraction of what they weighed with the map written out (format 2), and draw the
// same picture. A map a ruleset makes for a state (the teaching game's wire cut) is
// written out.
func TestSceneNamesItsMap(t *testing.T) {
	for _, s := range samples(t) {
		t.Run(s.name, func(t *testing.T) {
			enc := s.encoded(t)
			var w struct {
				V       int             `json:"v"`
				MapID   string          `json:"map_id"`
				Map     json.RawMessage `json:"map"`
				Terrain json.RawMessage `json:"terrain"`
			}
			if err := json.Unmarshal(enc, &w); err != nil {
				t.Fatal(err)
			}
			if s.name == "teaching" {
				// The sample's state has wire cut: its map is not the scenario's.
				if w.V != 2 || w.Map == nil {
					t.Errorf("a map made for a state is not written out: format %d", w.V)
				}
				return
			}
			if w.V != 3 || w.MapID == "" || w.Map != nil || w.Terrain != nil {
				t.Fatalf("the scene carries its map: format %d, map_id %q, %d bytes", w.V, w.MapID, len(enc))
			}
			mapimage.RegisterMaps(nil)
			inline := s.encoded(t)
			restoreMaps()
			if 10*len(enc) > 7*len(inline) {
				t.Errorf("the scene naming its map weighs %d bytes, the one carrying it %d", len(enc), len(inline))
			}
			a, b := render(t, enc), render(t, inline)
			if !samePixels(t, a, b) {
				t.Error("the scene naming its map draws another picture than the one carrying it")
			}
			if bytes.Equal(enc, inline) {
				t.Error("the same bytes")
			}
		})
	}
}

// TestSceneOfAnUnknownMap: a scene naming a map this program does not have (one
// whose data changed since the mail was queued) is refused with an error that says
// so, not drawn on another map.
func TestSceneOfAnUnknownMap(t *testing.T) {
	enc := samples(t)[0].encoded(t)
	var w map[string]any
	if err := json.Unmarshal(enc, &w); err != nil {
		t.Fatal(err)
	}
	w["map_id"] = "0123456789abcdef"
	b, err := json.Marshal(w)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := mapimage.RenderEncoded(b); err == nil || !bytes.Contains([]byte(err.Error()), []byte("not compiled into this program")) {
		t.Errorf("a scene of an unknown map: %v", err)
	}
}
