package batch

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/url"
	"regexp"
	"strconv"
	"strings"
)

// A reference, @{id.Field}, stands for a value of an earlier operation's
// answer in a later operation's path or in any string of its body: the
// member Field of the answer's body (a dotted path walks into objects and
// lists: @{t1.materials.0.id}). A string that is not of this form is
// left as it is.
var reference = regexp.MustCompile(`@\{([A-Za-z0-9_-]{1,64})\.([A-Za-z0-9_.]{1,200})\}`)

// Outcome is what an operation that ran answered: its status and body.
type Outcome struct {
	Status int
	Body   json.RawMessage
}

// Outcomes are the answers of the operations run so far, by id; an id
// named by the batch but absent here has not run yet.
type Outcomes struct {
	ids  map[string]int     // every operation of the batch, by id: its index
	done map[string]Outcome // those that ran
}

// NewOutcomes starts the outcomes of a batch's operations.
func NewOutcomes(ops []Operation) *Outcomes {
	o := &Outcomes{ids: make(map[string]int, len(ops)), done: map[string]Outcome{}}
	for i, op := range ops {
		o.ids[op.ID] = i
	}
	return o
}

// Add notes the answer of an operation that ran.
func (o *Outcomes) Add(id string, out Outcome) { o.done[id] = out }

// RefError is a reference an operation cannot use: to an operation that
// does not exist, is itself, comes later, failed, or whose answer has no
// such value. Field is where it was met: "path" or the body's field.
type RefError struct {
	Field  string
	Detail string
}

func (e *RefError) Error() string { return e.Field + ": " + e.Detail }

// HasReferences reports whether an operation's path or body may name an
// earlier operation's answer: when not, Resolve returns both unchanged.
func HasReferences(op Operation) bool {
	return strings.Contains(op.Path, "@{") || bytes.Contains(op.Body, []byte("@{"))
}

// Resolve returns the operation's path and body with every reference
// replaced by the value it names. In the path the value is escaped as a
// path segment; in the body it becomes part of the string it stood in.
func (o *Outcomes) Resolve(op Operation) (path string, body []byte, err error) {
	if path, err = o.replace(op, op.Path, "path", url.PathEscape); err != nil {
		return "", nil, err
	}
	if op.Body == nil || !bytes.Contains(op.Body, []byte("@{")) {
		return path, op.Body, nil
	}
	dec := json.NewDecoder(bytes.NewReader(op.Body))
	dec.UseNumber() // numbers pass through exactly as sent
	var v any
	if err := dec.Decode(&v); err != nil {
		return "", nil, err
	}
	if v, err = o.walk(op, v, ""); err != nil {
		return "", nil, err
	}
	var out bytes.Buffer
	enc := json.NewEncoder(&out)
	enc.SetEscapeHTML(false) // the text as sent: "<" stays "<"
	if err := enc.Encode(v); err != nil {
		return "", nil, err
	}
	return path, bytes.TrimSuffix(out.Bytes(), []byte("\n")), nil
}

// walk replaces references in every string of a decoded body; at is the
// field path the single call's problems use (materials[1].note).
func (o *Outcomes) walk(op Operation, v any, at string) (any, error) {
	switch x := v.(type) {
	case string:
		return o.replace(op, x, at, nil)
	case []any:
		for i, item := range x {
			var err error
			if x[i], err = o.walk(op, item, fmt.Sprintf("%s[%d]", at, i)); err != nil {
				return nil, err
			}
		}
	case map[string]any:
		for name, item := range x {
			field := name
			if at != "" {
				field = at + "." + name
			}
			var err error
			if x[name], err = o.walk(op, item, field); err != nil {
				return nil, err
			}
		}
	}
	return v, nil
}

func (o *Outcomes) replace(op Operation, text, field string, escape func(string) string) (string, error) {
	if !strings.Contains(text, "@{") {
		return text, nil
	}
	var failure error
	out := reference.ReplaceAllStringFunc(text, func(ref string) string {
		if failure != nil {
			return ref
		}
		m := reference.FindStringSubmatch(ref)
		value, err := o.value(op, m[1], m[2])
		if err != nil {
			failure = &RefError{Field: field, Detail: ref + ": " + err.Error()}
			return ref
		}
		if escape != nil {
			value = escape(value)
		}
		return value
	})
	return out, failure
}

// value is the text of the member path of operation id's answer.
func (o *Outcomes) value(op Operation, id, path string) (string, error) {
	if id == op.ID {
		return "", fmt.Errorf("operation %q refers to itself; a reference names an earlier operation", id)
	}
	index, exists := o.ids[id]
	if !exists {
		return "", fmt.Errorf("no operation of this batch has the id %q", id)
	}
	out, ran := o.done[id]
	if !ran {
		return "", fmt.Errorf("operation %q (operations[%d]) comes later; a reference names an earlier operation", id, index)
	}
	if out.Status >= 300 {
		return "", fmt.Errorf("operation %q (operations[%d]) failed with status %d: its answer has no values to use", id, index, out.Status)
	}
	var v any
	dec := json.NewDecoder(bytes.NewReader(out.Body))
	dec.UseNumber()
	if err := dec.Decode(&v); err != nil {
		return "", fmt.Errorf("operation %q answered no JSON value", id)
	}
	for _, step := range strings.Split(path, ".") {
		switch x := v.(type) {
		case map[string]any:
			next, ok := x[step]
			if !ok {
				return "", fmt.Errorf("the answer of operation %q has no member %q", id, step)
			}
			v = next
		case []any:
			i, err := strconv.Atoi(step)
			if err != nil || i < 0 || i >= len(x) {
				return "", fmt.Errorf("the answer of operation %q has no item %q in %s", id, step, path)
			}
			v = x[i]
		default:
			return "", fmt.Errorf("the answer of operation %q has no member %q in %s", id, step, path)
		}
	}
	switch x := v.(type) {
	case string:
		return x, nil
	case json.Number:
		return x.String(), nil
	case bool:
		return strconv.FormatBool(x), nil
	}
	return "", fmt.Errorf("%s of operation %q is not a text, number or boolean", path, id)
}
