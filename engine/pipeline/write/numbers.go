package write

import (
	"context"
	"slices"
	"strconv"

	"fieldapi/engine"
	"fieldapi/engine/pipeline/registers"
	"fieldapi/engine/store"
)

// numberPool holds the numbers of series an atomic batch took ahead and
// has not used yet: n creates take their n numbers, and check none is a
// key given by hand, in one statement each (alone, two per create). A
// create gets the number it would get alone: taken numbers are skipped, a
// key given by hand in the batch is dropped from the pool, and what the
// batch does not use is given back at its end (store.Tx.ReturnNumbers).
type numberPool struct {
	free map[string][]int64 // by register: checked free, increasing
	next map[string]int64   // by register: the series' next after the last take
}

func newNumberPool() *numberPool {
	return &numberPool{free: map[string][]int64{}, next: map[string]int64{}}
}

// take returns the next free number of r's series, taking want numbers
// (at least 1) when the pool has none left.
func (p *numberPool) take(ctx context.Context, w *Writer, r *registers.Register, want int) (string, error) {
	name := r.Reg.Name
	for len(p.free[name]) == 0 {
		numbers, err := w.tx.NextNumbers(ctx, w.s.Company, name, min(max(want, 1), maxPooledNumbers))
		if err != nil {
			return "", err
		}
		keys := make([]string, len(numbers))
		for i, n := range numbers {
			keys[i] = strconv.FormatInt(n, 10)
		}
		// The keys given by hand among them, in one query.
		rows, err := w.tx.Select(ctx, store.Select{Table: name, Company: w.s.Company,
			Where: []store.Cond{store.OneOf(r.Key.Name, keys)}, Columns: []string{r.Key.Name}})
		if err != nil {
			return "", err
		}
		taken := make(map[string]bool, len(rows))
		for _, row := range rows {
			taken[r.KeyOf(row)] = true
		}
		for i, n := range numbers {
			if !taken[keys[i]] {
				p.free[name] = append(p.free[name], n)
			}
		}
		p.next[name] = numbers[len(numbers)-1] + 1
	}
	n := p.free[name][0]
	p.free[name] = p.free[name][1:]
	return strconv.FormatInt(n, 10), nil
}

// numberAhead is the number a create takes with its reads ahead where the
// store's series need no transaction (store.NumberTaker), sparing the
// transaction a round trip on PostgreSQL. A refused create leaves a gap,
// as a rollback does there anyway.
type numberAhead struct {
	r     *registers.Register
	taken *store.TakenNumber // nil until taken, or when the store took none
}

// numberWanted is the number a single create of in on r takes ahead:
// none when it sends its key or r numbers none.
func numberWanted(r *registers.Register, in engine.Input) *numberAhead {
	if r.EngineKeyed || !r.Reg.NumberSeries || !engine.Empty(in.Values[r.Key.Name]) {
		return nil
	}
	return &numberAhead{r: r}
}

// useAhead is the number taken ahead for r, once; false when there is
// none or a row holds it (the create then takes the next one).
func (w *Writer) useAhead(r *registers.Register) (string, bool) {
	a := w.numberAhead
	if a == nil || a.r != r || a.taken == nil {
		return "", false
	}
	w.numberAhead = nil
	return strconv.FormatInt(a.taken.N, 10), a.taken.Free
}

// maxPooledNumbers caps one take (a batch holds at most 1000 operations).
const maxPooledNumbers = 1000

// drop takes a key given by hand out of the pool: the series would skip
// it once the record exists.
func (p *numberPool) drop(register, key string) {
	free := p.free[register]
	if i := slices.IndexFunc(free, func(n int64) bool { return strconv.FormatInt(n, 10) == key }); i >= 0 {
		p.free[register] = slices.Delete(free, i, i+1)
	}
}

// giveBack returns the numbers the batch took and did not use.
func (p *numberPool) giveBack(ctx context.Context, tx store.Tx, company string) error {
	for name, free := range p.free {
		if len(free) == 0 {
			continue
		}
		if err := tx.ReturnNumbers(ctx, company, name, free[0], p.next[name]); err != nil {
			return err
		}
	}
	return nil
}
