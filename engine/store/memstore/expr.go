package memstore

import (
	"encoding/json"
	"strings"
	"unicode"
)

// evalExpr evaluates the SQL expression of a computed extra field on a row
// and reads it as text ("" when NULL). It knows the subset real data uses:
// 'literals' (a doubled quote is a quote), "column names" (Column.Name,
// read through column), NULL, parentheses, || (NULL when either side is),
// and COALESCE, UPPER, LOWER and TRIM in any case. Anything else reads "".
func evalExpr(text string, column func(name string) (any, bool)) string {
	p := &parser{rest: text, column: column}
	v, ok := p.concat()
	if !ok || strings.TrimSpace(p.rest) != "" || v == nil {
		return ""
	}
	return *v
}

// parser reads an expression. A value is a *string, nil for NULL; false
// says the text left the subset.
type parser struct {
	rest   string // what is not read yet
	column func(name string) (any, bool)
}

// eat skips spaces, then tok if it comes next.
func (p *parser) eat(tok string) bool {
	rest, ok := strings.CutPrefix(strings.TrimLeft(p.rest, " \t\r\n"), tok)
	if ok {
		p.rest = rest
	}
	return ok
}

// concat is term ("||" term)*.
func (p *parser) concat() (*string, bool) {
	v, ok := p.term()
	for ok && p.eat("||") {
		var w *string
		if w, ok = p.term(); v != nil && w != nil {
			s := *v + *w
			v = &s
		} else {
			v = nil
		}
	}
	return v, ok
}

// term is a literal, a column, NULL, a call or a parenthesized concat.
func (p *parser) term() (*string, bool) {
	p.eat("") // skips spaces
	switch {
	case p.eat("'"):
		return p.quoted("'")
	case p.eat(`"`):
		name, ok := p.quoted(`"`)
		if !ok {
			return nil, false
		}
		v, ok := p.column(*name)
		return text(v), ok
	case p.eat("("):
		v, ok := p.concat()
		return v, ok && p.eat(")")
	}
	end := strings.IndexFunc(p.rest, func(r rune) bool { return !unicode.IsLetter(r) })
	if end < 0 {
		end = len(p.rest)
	}
	name := strings.ToUpper(p.rest[:end])
	p.rest = p.rest[end:]
	if name == "NULL" {
		return nil, true
	}
	call := functions[name]
	if call == nil || !p.eat("(") {
		return nil, false
	}
	var args []*string
	for len(args) == 0 || !p.eat(")") { // one argument at least
		if len(args) > 0 && !p.eat(",") {
			return nil, false
		}
		v, ok := p.concat()
		if !ok {
			return nil, false
		}
		args = append(args, v)
	}
	return call(args)
}

// quoted reads the rest of a literal or name, up to the closing q; a
// doubled q is one q.
func (p *parser) quoted(q string) (*string, bool) {
	var s string
	for {
		part, rest, closed := strings.Cut(p.rest, q)
		if !closed {
			return nil, false
		}
		s += part
		if p.rest, closed = strings.CutPrefix(rest, q); !closed {
			return &s, true
		}
		s += q
	}
}

// functions are the subset's functions of their arguments; false: the
// call is not one the subset knows.
var functions = map[string]func(args []*string) (*string, bool){
	"COALESCE": func(args []*string) (*string, bool) {
		for _, a := range args {
			if a != nil {
				return a, true
			}
		}
		return nil, true
	},
	"UPPER": textFunction(strings.ToUpper),
	"LOWER": textFunction(strings.ToLower),
	"TRIM":  textFunction(func(s string) string { return strings.Trim(s, " ") }),
}

// textFunction is a function of one argument, NULL on NULL.
func textFunction(f func(string) string) func(args []*string) (*string, bool) {
	return func(args []*string) (*string, bool) {
		if len(args) != 1 || args[0] == nil {
			return nil, len(args) == 1
		}
		s := f(*args[0])
		return &s, true
	}
}

// text is a column's value as SQL text: nil for NULL, strings and bytes as
// they are, the rest as JSON (numbers, true/false, lists, objects).
func text(v any) *string {
	var s string
	switch x := v.(type) {
	case nil:
		return nil
	case string:
		s = x
	case []byte:
		s = string(x)
	default:
		b, _ := json.Marshal(x)
		s = string(b)
	}
	return &s
}
