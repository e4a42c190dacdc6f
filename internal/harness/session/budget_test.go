package session

import "testing"

// TestBudgetExhausted: a budget reports Exhausted once a take found it
// spent (a flood), and not before; what was refused is not taken.
func TestBudgetExhausted(t *testing.T) {
	b := NewBudget(10)
	if !b.take(6) || b.Exhausted() {
		t.Fatalf("6 of 10 bytes: taken %v, exhausted %v", true, b.Exhausted())
	}
	if b.take(5) {
		t.Fatal("5 more bytes of the 4 left were taken")
	}
	if !b.Exhausted() {
		t.Error("a refused take did not mark the budget exhausted")
	}
	if !b.take(4) {
		t.Error("the 4 bytes left were not taken after a refusal")
	}
	var none *Budget
	if none.Exhausted() || !none.take(1<<30) {
		t.Error("a nil budget is never exhausted and takes anything")
	}
}

// TestBudgetHeavy: Heavy is Large or Exhausted.
func TestBudgetHeavy(t *testing.T) {
	b := NewBudget(1)
	if b.Heavy() {
		t.Fatal("a fresh budget is heavy")
	}
	b.take(2)
	if !b.Heavy() {
		t.Error("an exhausted budget is not heavy")
	}
	l := NewBudget(1)
	l.large.Store(true)
	if !l.Heavy() {
		t.Error("a budget that saw a large frame is not heavy")
	}
}
