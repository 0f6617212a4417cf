package memstore

import (
	"encoding/json"
	"regexp"
	"strings"
)

// evalExpr evaluates the SQL expression of a computed extra field on a row
// and reads it as text ("" when NULL). It knows the subset real data uses:
// 'literals' (a doubled quote is a quote), "column names" (Column.Name,
// read through column), NULL, parentheses, || (NULL when either side is),
// and COALESCE, UPPER, LOWER and TRIM in any case. Anything else reads "".
func evalExpr(text string, column func(name string) (any, bool)) string {
	p := &parser{tokens: tokens.FindAllString(text, -1), column: column}
	v, ok := p.concat()
	if !ok || len(p.tokens) > 0 || v == nil {
		return ""
	}
	return *v
}

// tokens are a literal, a quoted name, ||, a word, or any other character
// (which no rule takes).
var tokens = regexp.MustCompile(`'(?:[^']|'')*'|"(?:[^"]|"")*"|\|\||[A-Za-z]+|\S`)

// parser reads an expression's tokens. A value is a *string, nil for
// NULL; false says the text left the subset.
type parser struct {
	tokens []string
	column func(name string) (any, bool)
}

// take reads the next token if it is tok.
func (p *parser) take(tok string) bool {
	ok := len(p.tokens) > 0 && p.tokens[0] == tok
	if ok {
		p.tokens = p.tokens[1:]
	}
	return ok
}

// concat is term ("||" term)*.
func (p *parser) concat() (*string, bool) {
	v, ok := p.term()
	for ok && p.take("||") {
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
	if len(p.tokens) == 0 {
		return nil, false
	}
	tok := p.tokens[0]
	p.tokens = p.tokens[1:]
	unquoted := func(q string) string { return strings.ReplaceAll(tok[1:len(tok)-1], q+q, q) }
	switch {
	case tok == "(":
		v, ok := p.concat()
		return v, ok && p.take(")")
	case len(tok) > 1 && tok[0] == '\'':
		s := unquoted("'")
		return &s, true
	case len(tok) > 1 && tok[0] == '"':
		v, ok := p.column(unquoted(`"`))
		return text(v), ok
	case strings.EqualFold(tok, "NULL"):
		return nil, true
	}
	if !p.take("(") {
		return nil, false
	}
	var args []*string
	for len(args) == 0 || !p.take(")") { // one argument at least
		if len(args) > 0 && !p.take(",") {
			return nil, false
		}
		v, ok := p.concat()
		if !ok {
			return nil, false
		}
		args = append(args, v)
	}
	if strings.EqualFold(tok, "COALESCE") {
		for _, a := range args {
			if a != nil {
				return a, true
			}
		}
		return nil, true
	}
	f := map[string]func(string) string{"UPPER": strings.ToUpper, "LOWER": strings.ToLower,
		"TRIM": func(s string) string { return strings.Trim(s, " ") }}[strings.ToUpper(tok)]
	if f == nil || len(args) != 1 || args[0] == nil { // NULL in, NULL out
		return nil, f != nil && len(args) == 1
	}
	s := f(*args[0])
	return &s, true
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
