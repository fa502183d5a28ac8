package adjudicator_test

import (
	"context"
	"reflect"
	"slices"
	"testing"

	"github.com/adjutant-pbem/adjutant/store"
)

// keptOrdersStore is a store whose transactions remember every list of orders they
// returned, with a copy of it as returned.
type keptOrdersStore struct {
	store.Store
	given, copies [][]store.Order
}

func (s *keptOrdersStore) Write(ctx context.Context, fn func(store.Tx) error) error {
	return s.Store.Write(ctx, func(tx store.Tx) error { return fn(&keptOrdersTx{Tx: tx, s: s}) })
}

type keptOrdersTx struct {
	store.Tx
	s *keptOrdersStore
}

func (t *keptOrdersTx) Orders(game string) ([]store.Order, error) {
	os, err := t.Tx.Orders(game)
	t.s.given, t.s.copies = append(t.s.given, os), append(t.s.copies, slices.Clone(os))
	return os, err
}

// TestDeskLeavesStoredOrders: the desk never changes a list of orders the store gave
// it (a store may keep it, as a transaction's cache): the sample game played to its
// end, every phase revealing, fixing and consuming orders, leaves each list as it
// was returned.
func TestDeskLeavesStoredOrders(t *testing.T) {
	desk, _, mails := benchDesk(t, 2)
	s := &keptOrdersStore{Store: desk.Store}
	desk.Store = s
	handleAll(t, desk, mails)
	if len(s.given) == 0 {
		t.Fatal("no orders were read")
	}
	for i := range s.given {
		if !reflect.DeepEqual(s.given[i], s.copies[i]) {
			t.Fatalf("list %d of orders the store gave was changed by the desk:\n%+v\nwas\n%+v", i, s.given[i], s.copies[i])
		}
	}
}
