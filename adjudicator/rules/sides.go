package rules

// Sides is a two-sided game's sides, in the order its Sides gives them: the one list a
// ruleset asks for the other side and a side's name, instead of writing each again.
type Sides []SideInfo

// Other is the side that is not s (the first side for a side the game does not have).
func (ss Sides) Other(s Side) Side {
	for _, x := range ss {
		if x.ID != s {
			return x.ID
		}
	}
	return ""
}

// Name is s's name for players ("German"), or s itself when the game has no such side.
func (ss Sides) Name(s Side) string {
	for _, x := range ss {
		if x.ID == s {
			return x.Name
		}
	}
	return string(s)
}

// IDs lists the sides' ids in order.
func (ss Sides) IDs() []Side {
	ids := make([]Side, len(ss))
	for i, x := range ss {
		ids[i] = x.ID
	}
	return ids
}

// FindOrder returns the order filed for phase by side under key.
func FindOrder(filed []Order, phase string, side Side, key string) (Order, bool) {
	for _, o := range filed {
		if o.Phase == phase && o.Side == side && o.Key == key {
			return o, true
		}
	}
	return Order{}, false
}
