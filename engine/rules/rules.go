// Package rules holds the reference engine's business rules beyond what the
// catalog declares: task statuses, assignees and plan dates, material
// pricing, order-line totals, quote validity, time bookings, address owners
// and the lists' ownerType filter.
//
// A rule module (Module) names its register and every catalog field it
// needs, with engine/names' constants; Bind checks them when the engine
// opens, so a catalog edit that breaks a rule stops the engine at start,
// naming the YAML file, the rule and the field.
//
// A rule works only through Tx and the hook interfaces it implements
// (CreatePreparer, UpdatePreparer, ...): no SQL here. engine/pipeline
// implements Tx and runs the hooks for every store; each rule is
// unit-tested against a fake Tx.
package rules

import (
	"context"
	"time"

	"fieldapi/catalog"
	"fieldapi/engine"
)

// Tx is what a rule may do inside the write it runs in. Every method works
// in the caller's company and the write's transaction.
type Tx interface {
	// Session is who is calling.
	Session() engine.Session
	// Now is the write's moment: the Modified of what it writes.
	Now() time.Time
	// Location is the company's time zone (setting "timezone"; UTC if unset).
	Location(ctx context.Context) (*time.Location, error)
	// Setting reads one of the company's settings; ok is false when unset.
	Setting(ctx context.Context, name string) (value string, ok bool, err error)
	// DecodedSetting is Setting decoded once while the company's settings
	// are kept; the result is shared by every write: never change it.
	DecodedSetting(ctx context.Context, name string, decode func(value string) (any, error)) (decoded any, ok bool, err error)
	// Referenced reads the record a reference names, or refuses the write
	// with the engine's text (`Product "X" does not exist`).
	Referenced(ctx context.Context, register, key string) (engine.Record, error)
	// Record reads one record by key, or engine.ErrNotFound.
	Record(ctx context.Context, register, key string) (engine.Record, error)
	// Records reads every record of a register, oldest first.
	Records(ctx context.Context, register string) ([]engine.Record, error)
	// UpdateIf sets fields (and Modified) of a record if its fields in
	// expect hold those values (nil: empty); else updated is false.
	UpdateIf(ctx context.Context, register, key string, expect, set map[string]any) (updated bool, err error)
	// Log adds an entry to a record's change log, signed by the caller;
	// record (after the change, or nil) lets a line be logged on its owner.
	Log(ctx context.Context, register, key, action, detail string, record engine.Record) error
}

// Module is one rule module: the hooks it implements run on writes of its
// register, in the order the modules are bound.
type Module interface {
	// Name names the module in messages: "the task status rules".
	Name() string
	// Register is the register whose writes it hooks into.
	Register() string
	// Needs lists every catalog field the module reads or writes.
	Needs() []Need
}

// Need is one catalog field a module reads or writes, with its type, or
// one line list whose lines it prepares.
type Need struct {
	Register string
	Field    string
	Type     catalog.FieldType
	Enum     []string // the values the module knows the field by, which the catalog's enum must list as they are
	Line     string   // a line list of Register, instead of a field
}

// Field is a Need, for short lists: Field(names.Tasks, names.TaskStatus, catalog.Text).
func Field(register, field string, t catalog.FieldType) Need {
	return Need{Register: register, Field: field, Type: t}
}

// EnumField is the Need of a text field whose values the module works
// with (statuses, types): the catalog's enum must list exactly these, in
// this order, so the two cannot drift apart.
func EnumField(register, field string, values []string) Need {
	return Need{Register: register, Field: field, Type: catalog.Text, Enum: values}
}

// LineList is the Need of a line list: LineList(names.Tasks, names.TaskMaterialsLine).
func LineList(register, line string) Need {
	return Need{Register: register, Line: line}
}

// Values are a record's values by PascalCase field name, as a write leaves
// them: nil, string, float64, bool, []string or map[string]string.
type Values = map[string]any

// The hook points a module may implement; a refusal (engine.Refuse) rolls
// back the whole write.
type (
	// CreatePreparer runs on a new record, defaults applied and references
	// resolved, just before it is stored.
	CreatePreparer interface {
		PrepareCreate(ctx context.Context, tx Tx, values Values) error
	}
	// UpdatePreparer runs before an update is stored, with the record as
	// it is and the values about to change (references resolved).
	UpdatePreparer interface {
		PrepareUpdate(ctx context.Context, tx Tx, current engine.Record, values Values) error
	}
	// LinePreparer runs on the owner's side before one of its lines (of the
	// line list named line) is created, with the owner's values.
	LinePreparer interface {
		PrepareLine(ctx context.Context, tx Tx, owner Values, line string, values Values) error
	}
	// CreateFinisher runs once the record and all its lines are stored.
	CreateFinisher interface {
		AfterCreate(ctx context.Context, tx Tx, c Created, values Values) error
	}
	// UpdateFinisher runs once an update is stored, with the record before
	// and after it.
	UpdateFinisher interface {
		AfterUpdate(ctx context.Context, tx Tx, before, after engine.Record) error
	}
	// Actor carries out the register's named commands (catalog actions).
	Actor interface {
		Actions() map[string]Action
	}
	// ListConditioner rewrites one condition of a list before the engine
	// runs it: it may give a value a meaning of its own or refuse it.
	ListConditioner interface {
		ListCondition(c engine.Condition) (engine.Condition, error)
	}
	// KeyLister lists the keys a refusal of an unknown reference to the
	// register names in validValues (time type names, spec 7 rule 1).
	KeyLister interface {
		ValidKeys(ctx context.Context, tx Tx) ([]string, error)
	}
)

// Created is a record a create has just stored.
type Created struct {
	Key string // its key
	Row int64  // the engine's row number: its internal id
}

// Action carries out a named command on the record with the given key.
type Action func(ctx context.Context, tx Tx, key string, in engine.Input) error
