package store

import (
	"cmp"
	"encoding/json"
	"regexp"
	"strings"
)

// EvalExpr evaluates the SQL expression of a computed extra field (an
// Expr's Text) on a row and reads it as text ("" when NULL), for a store
// that runs no SQL (memstore). It knows the subset real data uses:
// 'literals' (a doubled quote is a quote), "column names" (Column.Name,
// read through column), NULL, parentheses, || (NULL when either side is),
// and COALESCE, UPPER, LOWER and TRIM in any case. Anything else reads "".
func EvalExpr(text string, column func(name string) (any, bool)) string {
	p := &parser{tokens: tokens.FindAllString(text, -1), column: column, functions: functions}
	v, ok := p.concat()
	if !ok || len(p.tokens) > 0 || v == nil {
		return ""
	}
	return *v
}

// ExactInGo reports whether EvalExpr gives what SQL gives for the text:
// all of it within the subset, without UPPER and LOWER (SQLite and
// PostgreSQL map letters beyond ASCII otherwise than Go does), and every
// column one isText says holds text (EvalExpr reads other types as JSON,
// not as SQL's text of them). Such a field can be evaluated from the
// values a write stored, without reading its row back.
func ExactInGo(text string, isText func(column string) bool) bool {
	p := &parser{tokens: tokens.FindAllString(text, -1), functions: exactFunctions,
		column: func(name string) (any, bool) { return "", isText(name) }}
	_, ok := p.concat()
	return ok && len(p.tokens) == 0
}

// tokens are a literal, a quoted name, ||, a word, or any other character
// (which no rule takes).
var tokens = regexp.MustCompile(`'(?:[^']|'')*'|"(?:[^"]|"")*"|\|\||[A-Za-z]+|\S`)

// functions are the one-argument text functions, by name in upper case.
var functions = map[string]func(string) string{"UPPER": strings.ToUpper, "LOWER": strings.ToLower, "TRIM": trim}

// exactFunctions are those whose result SQL gives alike (ExactInGo).
var exactFunctions = map[string]func(string) string{"TRIM": trim}

// trim is SQL's TRIM of one argument: spaces off both ends.
func trim(s string) string { return strings.Trim(s, " ") }

// parser reads an expression's tokens. A value is a *string, nil for
// NULL; false says the text left the subset.
type parser struct {
	tokens    []string
	column    func(name string) (any, bool)
	functions map[string]func(string) string // by name in upper case
}

// next reads the next token, "" at the end.
func (p *parser) next() string {
	if len(p.tokens) == 0 {
		return ""
	}
	tok := p.tokens[0]
	p.tokens = p.tokens[1:]
	return tok
}

// take reads the next token if it is tok.
func (p *parser) take(tok string) bool {
	ok := len(p.tokens) > 0 && p.tokens[0] == tok
	if ok {
		p.next()
	}
	return ok
}

// concat is term ("||" term)*.
func (p *parser) concat() (*string, bool) {
	v, ok := p.term()
	for ok && p.take("||") {
		var w *string
		if w, ok = p.term(); v != nil && w != nil {
			v = new(*v + *w)
		} else {
			v = nil
		}
	}
	return v, ok
}

// term is a literal, a column, NULL, a call or a parenthesized concat.
func (p *parser) term() (*string, bool) {
	tok := p.next()
	unquoted := func(q string) string { return strings.ReplaceAll(tok[1:len(tok)-1], q+q, q) }
	switch {
	case tok == "(":
		v, ok := p.concat()
		return v, ok && p.take(")")
	case len(tok) > 1 && tok[0] == '\'':
		return new(unquoted("'")), true
	case len(tok) > 1 && tok[0] == '"':
		v, ok := p.column(unquoted(`"`))
		return text(v), ok
	case strings.EqualFold(tok, "NULL"):
		return nil, true
	}
	var args []*string
	for more := p.take("("); more; more = p.take(",") {
		v, ok := p.concat()
		if !ok {
			return nil, false
		}
		args = append(args, v)
	}
	name := strings.ToUpper(tok)
	f := p.functions[name]
	switch {
	case len(args) == 0 || !p.take(")"): // a call takes one argument at least
		return nil, false
	case name == "COALESCE":
		return cmp.Or(args...), true // the first not NULL
	case f == nil || len(args) != 1:
		return nil, false
	case args[0] == nil: // NULL in, NULL out
		return nil, true
	}
	return new(f(*args[0])), true
}

// text is a column's value as SQL text: nil for NULL, strings and bytes as
// they are, the rest as JSON (numbers, true/false, lists, objects).
func text(v any) *string {
	switch x := v.(type) {
	case nil:
		return nil
	case string:
		return &x
	case []byte:
		return new(string(x))
	}
	b, _ := json.Marshal(v)
	return new(string(b))
}
