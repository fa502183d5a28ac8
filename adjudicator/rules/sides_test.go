package rules

import "testing"

func TestSides(t *testing.T) {
	ss := Sides{{ID: "us", Name: "US"}, {ID: "de", Name: "German"}}
	for _, c := range []struct {
		s           Side
		other, name string
	}{
		{"us", "de", "US"},
		{"de", "us", "German"},
		{"fr", "us", "fr"},
	} {
		if got := ss.Other(c.s); string(got) != c.other {
			t.Errorf("Other(%s) = %s, want %s", c.s, got, c.other)
		}
		if got := ss.Name(c.s); got != c.name {
			t.Errorf("Name(%s) = %s, want %s", c.s, got, c.name)
		}
	}
	if ids := ss.IDs(); len(ids) != 2 || ids[0] != "us" || ids[1] != "de" {
		t.Errorf("IDs = %v", ids)
	}
}

func TestFindOrder(t *testing.T) {
	filed := []Order{
		{Phase: "1.II", Side: "us", Key: "plot", Text: "a"},
		{Phase: "1.II", Side: "de", Key: "plot", Text: "b"},
		{Phase: "2.II", Side: "us", Key: "plot", Text: "c"},
	}
	if o, ok := FindOrder(filed, "1.II", "de", "plot"); !ok || o.Text != "b" {
		t.Errorf("FindOrder(1.II, de) = %v %v, want b", o, ok)
	}
	if _, ok := FindOrder(filed, "1.II", "de", "move"); ok {
		t.Error("FindOrder found an order under a key nobody filed")
	}
}

func TestRegistry(t *testing.T) {
	if _, err := NewRegistry(); err != nil {
		t.Fatal(err)
	}
	var r Registry = Registry{"b": nil, "a": nil}
	if n := r.Names(); len(n) != 2 || n[0] != "a" {
		t.Errorf("Names = %v", n)
	}
	_, err := r.Lookup("verdun")
	if err == nil || err.Error() != `unknown ruleset "verdun" (the rulesets are a, b)` {
		t.Errorf("Lookup(verdun) = %v", err)
	}
}
