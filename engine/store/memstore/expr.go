package memstore

import (
	"encoding/json"
	"strings"
)

// evalExpr evaluates the SQL expression of a computed extra field on a row
// and reads it as text ("" when NULL). It knows the subset real data uses:
// 'literals' (a doubled quote is a quote), "column names" (Column.Name,
// read through column), NULL, parentheses, || (NULL when either side is),
// and COALESCE, UPPER, LOWER and TRIM in any case. Anything else reads "".
func evalExpr(text string, column func(name string) (any, bool)) string {
	p := &parser{src: text, column: column}
	v, ok := p.concat()
	if p.space(); !ok || p.pos < len(p.src) || v == nil {
		return ""
	}
	return *v
}

// parser reads an expression. A value is a *string, nil for NULL; false
// says the text left the subset.
type parser struct {
	src    string
	pos    int
	column func(name string) (any, bool)
}

func (p *parser) space() {
	for p.pos < len(p.src) && strings.IndexByte(" \t\r\n", p.src[p.pos]) >= 0 {
		p.pos++
	}
}

// eat skips tok, after spaces, if it comes next.
func (p *parser) eat(tok string) bool {
	p.space()
	ok := strings.HasPrefix(p.src[p.pos:], tok)
	if ok {
		p.pos += len(tok)
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
	if p.space(); p.pos == len(p.src) {
		return nil, false
	}
	switch p.src[p.pos] {
	case '\'':
		return p.quoted('\'')
	case '"':
		name, ok := p.quoted('"')
		if !ok {
			return nil, false
		}
		v, ok := p.column(*name)
		return text(v), ok
	case '(':
		p.pos++
		v, ok := p.concat()
		return v, ok && p.eat(")")
	}
	start := p.pos
	for p.pos < len(p.src) && 'A' <= p.src[p.pos]&^0x20 && p.src[p.pos]&^0x20 <= 'Z' { // ASCII letters
		p.pos++
	}
	name := strings.ToUpper(p.src[start:p.pos])
	if name == "NULL" {
		return nil, true
	}
	if name == "" || !p.eat("(") {
		return nil, false
	}
	var args []*string
	for len(args) == 0 || !p.eat(")") {
		if len(args) > 0 && !p.eat(",") {
			return nil, false
		}
		v, ok := p.concat()
		if !ok {
			return nil, false
		}
		args = append(args, v)
	}
	if name == "COALESCE" {
		for _, a := range args {
			if a != nil {
				return a, true
			}
		}
		return nil, true
	}
	f := map[string]func(string) string{"UPPER": strings.ToUpper, "LOWER": strings.ToLower,
		"TRIM": func(s string) string { return strings.Trim(s, " ") }}[name]
	if f == nil || len(args) != 1 {
		return nil, false
	} else if args[0] == nil {
		return nil, true
	}
	s := f(*args[0])
	return &s, true
}

// quoted reads a literal or a name between q quotes, a doubled q being
// one q.
func (p *parser) quoted(q byte) (*string, bool) {
	var b strings.Builder
	for i := p.pos + 1; i < len(p.src); i++ {
		switch {
		case p.src[i] != q:
			b.WriteByte(p.src[i])
		case i+1 < len(p.src) && p.src[i+1] == q:
			b.WriteByte(q)
			i++
		default:
			p.pos = i + 1
			s := b.String()
			return &s, true
		}
	}
	return nil, false
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
