package adjudicator_test

import (
	"github.com/adjutant-pbem/adjutant/adjudicator/rules"
	"strings"
	"testing"

	"github.com/adjutant-pbem/adjutant/adjudicator"
	"github.com/adjutant-pbem/adjutant/adjudicator/soldiers1918"
)

// layeredRules is Soldiers 1918 with a map that can show a layer, as Soissons's MAP ZOC.
type layeredRules struct{ *soldiers1918.Rules }

func (layeredRules) MapLayers() map[string]string {
	return map[string]string{"ZOC": "zones of control", "TZ": "threat zones"}
}

func (l layeredRules) MapWith(st rules.State, side rules.Side, layers []string) string {
	return "LAYERED MAP: " + strings.Join(layers, "+")
}

// TestMapLayers: MAP with words asks the ruleset for those layers; a word the game's map
// does not offer, or any word in a game whose map offers none, is refused with what is
// offered, and no map is sent.
func TestMapLayers(t *testing.T) {
	f := newFixture(t, adjudicator.NewGame{})
	_, mails := f.orders("us", passU, "MAP zoc")
	if len(mails) != 1 || !strings.Contains(mails[0].Body, "MAP takes no word in this game") || strings.Contains(mails[0].Body, "== MAP ==") {
		t.Fatalf("MAP ZOC in a game without layers:\n%s", mails[0].Body)
	}
	theRules := f.desk.Rulesets[soldiers1918.Name].(*soldiers1918.Rules)
	f.desk.Rulesets[soldiers1918.Name] = layeredRules{theRules}
	_, mails = f.orders("us", passU, "MAP zoc TZ")
	if body := mails[0].Body; !strings.Contains(body, "LAYERED MAP: ZOC+TZ") {
		t.Errorf("MAP zoc TZ did not ask for both layers:\n%s", body)
	}
	_, mails = f.orders("us", passU, "MAP SUPPLY")
	if body := mails[0].Body; !strings.Contains(body, `cannot show "SUPPLY"; it can show: TZ, ZOC`) || strings.Contains(body, "LAYERED MAP") {
		t.Errorf("MAP SUPPLY:\n%s", body)
	}
	_, mails = f.orders("us", passU, "MAP")
	if body := mails[0].Body; strings.Contains(body, "LAYERED MAP") {
		t.Errorf("MAP alone drew layers:\n%s", body)
	}
}
