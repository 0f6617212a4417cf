package write

import (
	"context"
	"errors"
	"maps"
	"reflect"

	"fieldapi/catalog"
	"fieldapi/engine"
	"fieldapi/engine/pipeline/registers"
	"fieldapi/engine/store"
)

// maxUpsertAttempts bounds the runs of an upsert that lost the race to
// create its key: a run that loses rolls back whole, and the next one
// finds the record the winner committed and updates it.
const maxUpsertAttempts = 3

// Upsert creates the record by.Value names in field by.Field (the key or a
// lookup key), or updates the one that has it. A create that finds the key
// taken by a parallel create rolls back and runs again, then updating the
// winner's record: the caller never sees the race.
func (e *Writes) Upsert(ctx context.Context, s engine.Session, register string, by engine.KeyRef, in engine.Input, only engine.Presence, rc engine.UpsertReceipt) (engine.Response, error) {
	r, err := e.registers.Get(register)
	if err != nil {
		return engine.Response{}, err
	}
	f := r.Reg.Field(by.Field)
	if !r.Reg.Upserts(f) {
		return engine.Response{}, engine.Refuse("%s cannot be created or changed by %s", register, by.Field)
	}
	if by.Value == "" {
		return engine.Response{}, refuseMissing(f.Name)
	}
	// Inside Atomically the transaction is the batch's: a lost race
	// cannot roll back alone (and on PostgreSQL the failed insert has
	// ended the transaction), so it fails the batch with the key taken.
	joined, _ := e.joinedTx(ctx, s)
	for attempt := 1; ; attempt++ {
		resp, err := e.upsertOnce(ctx, s, r, f, by.Value, in, only, rc)
		if attempt < maxUpsertAttempts && joined == nil && errors.Is(err, errLostCreateRace) {
			continue
		}
		return resp, err
	}
}

// errLostCreateRace marks an upsert's create that found its key taken by a
// parallel create after it had looked: it wrote nothing, and runs again.
var errLostCreateRace = errors.New("a parallel create took the key first")

func (e *Writes) upsertOnce(ctx context.Context, s engine.Session, r *registers.Register, f *catalog.Field, value string, in engine.Input, only engine.Presence, rc engine.UpsertReceipt) (engine.Response, error) {
	createdNow := false
	receipt := engine.Receipt{Claim: rc.Claim, Render: func(rec engine.Record) (engine.Response, error) {
		if createdNow {
			return rc.Created(rec)
		}
		return rc.Updated(rec)
	}}
	if rc.Created == nil || rc.Updated == nil {
		receipt.Render = nil
	}
	return e.writeAs(ctx, e.newWriter(s), r.Reg.Name, receipt, &plannedInput{r, in, true},
		func(ctx context.Context, w *Writer) (engine.Record, error) {
			current, seq, err := e.reads.RecordWhere(ctx, w.tx, r, s.Company, store.Equal(f.Name, value), true)
			if errors.Is(err, engine.ErrNotFound) {
				if only == engine.UpdateOnly || len(in.IfMatch) > 0 {
					return nil, engine.ErrPreconditionFailed // If-Match: "*" and tags fail on no record (RFC 9110 13.1.1)
				}
				createdNow = true
				create := in
				create.Values = make(map[string]any, len(in.Values)+1)
				maps.Copy(create.Values, in.Values)
				create.Values[f.Name] = value
				rec, err := w.create(ctx, r, create)
				var taken *engine.KeyTakenError
				if errors.As(err, &taken) && (taken.Field == f.Name || store.IsDuplicate(err)) {
					return nil, errors.Join(errLostCreateRace, err)
				}
				return rec, err
			}
			if err != nil {
				return nil, err
			}
			if only == engine.CreateOnly {
				return nil, engine.ErrPreconditionFailed // If-None-Match: * fails on a record (RFC 9110 13.1.2)
			}
			key := r.KeyOf(store.Row{Seq: seq, Values: store.Values(current)})
			return w.update(ctx, r, key, withoutUnchanged(r, current, in))
		})
}

// withoutUnchanged is an update's input less the values the record holds
// already: a sync job that sends a whole record again changes nothing, so
// it writes nothing, logs nothing and emits no event. A create-only field
// sent with its stored value (a task's customerNr) is no change either.
func withoutUnchanged(r *registers.Register, current engine.Record, in engine.Input) engine.Input {
	out := in
	out.Values = make(map[string]any, len(in.Values))
	for name, v := range in.Values {
		if f := r.Reg.Field(name); f != nil {
			if n, err := registers.Normalize(f, v); err == nil && sameValue(n, current[name]) {
				continue
			}
		}
		out.Values[name] = v
	}
	if in.Extra != nil {
		stored := current.Object("ExtraFields")
		out.Extra = map[string]string{}
		for k, v := range in.Extra {
			if old, ok := stored[k]; !ok || old != v {
				out.Extra[k] = v
			}
		}
		if len(out.Extra) == 0 {
			out.Extra = nil
		}
	}
	return out
}

// sameValue reports whether a value sent equals a stored one; an empty
// list equals none.
func sameValue(sent, stored any) bool {
	if list, ok := sent.([]string); ok && len(list) == 0 {
		return engine.Empty(stored)
	}
	return reflect.DeepEqual(sent, stored)
}

// checkLookupsFree refuses values of lookup keys another record of the
// company holds (seq: the record written, 0 for a new one). The unique
// index behind it catches a parallel write between the check and the
// insert.
func (w *Writer) checkLookupsFree(ctx context.Context, r *registers.Register, values map[string]any, seq int64) error {
	for _, f := range r.Lookups {
		v, ok := values[f.Name].(string)
		if !ok || v == "" {
			continue
		}
		where := []store.Cond{store.Equal(f.Name, v)}
		if seq != 0 {
			where = append(where, store.Cond{Field: store.SeqField, Op: store.NotIn, Values: []any{seq}})
		}
		n, err := w.tx.Count(ctx, store.Select{Table: r.Reg.Name, Company: w.s.Company, Where: where})
		if err != nil {
			return err
		}
		if n > 0 {
			return &engine.KeyTakenError{Record: r.Reg.Record, Field: f.Name, Value: v, Lookup: f.LookupKey}
		}
	}
	return nil
}
