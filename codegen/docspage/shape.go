package docspage

import (
	"html/template"
	"slices"
	"strconv"
	"strings"

	"fieldapi/codegen/model"
	"fieldapi/runtime"
)

// docsReadShape is a register's paragraph on fields= and expand=, with an
// example of each.
type docsReadShape struct {
	Fields     template.HTML
	Expand     template.HTML // "" without expansions
	Expansions []docsExpansionRow
}

// docsExpansionRow is one row of a register's expansions table.
type docsExpansionRow struct {
	Name, Scope string
	What        template.HTML
}

// shapeDocs describes fields= and expand= of r's list and gets.
func shapeDocs(r *model.Register) docsReadShape {
	names := r.ReadNames()
	example := []string{r.Key}
	for _, n := range names {
		if n != r.Key && len(example) < 3 {
			example = append(example, n)
		}
	}
	d := docsReadShape{Fields: code(r.CollectionPath+"?fields="+strings.Join(example[1:], ",")) + " answers each record with " +
		text(strings.Join(example, ", ")) + " only: the key " + code(r.Key) + " always comes, the other members keep the read shape's order, and " +
		"the store reads only those columns. Names are as read (PascalCase) or camelCase; an unknown one is 400 " + code("invalid_parameter") +
		" listing the valid ones. Gets take it too (" + code(r.ItemDocPath+"?fields=…") + "); their ETag is then weak, of the answer: " +
		code("If-None-Match") + " still answers 304, a write's " + code("If-Match") + " refuses it."}
	if len(r.ReadLines) > 0 {
		l := r.ReadLines[0]
		lineNames := l.Of.ReadNames()
		i := slices.IndexFunc(lineNames, func(n string) bool { _, set := l.Set[n]; return n != l.Of.Key && n != l.Parent && !set })
		nested := l.ReadName + "." + lineNames[max(i, 0)]
		d.Fields += " The fields of a line list's lines are named after the list: " + code(r.CollectionPath+"?fields="+example[1]+","+nested) +
			" answers each record's " + text(l.ReadName) + " with only " + code(nested) + " and the line's key " + code(l.Of.Key) +
			" on each line, the store reading only those columns; " + code("fields="+l.ReadName) + " answers whole lines, and naming a list both ways is 400. " +
			"A name inside a field that is neither a line list nor an expansion is 400."
	}
	if len(r.Expansions) == 0 {
		return d
	}
	x := r.Expansions[0]
	nested := x.Name + "." + x.Of.ReadNames()[min(1, len(x.Of.ReadNames())-1)]
	d.Expand = code(r.CollectionPath+"?expand="+x.Name+"&fields="+example[1]+","+nested) + " answers each record with its " + text(x.Name) +
		" read as " + code("GET /v1/"+x.Of.Name+"/{"+x.Of.Key+"}") + " reads it, narrowed to " + code(nested) + " (and its key): fields of an expansion are named after it. " +
		"Each expansion costs one query for the whole page, never one per record. It goes one level deep (an expanded record expands nothing); " +
		"an expanded line list carries at most " + text(strconv.Itoa(runtime.MaxExpandedLines)) + " lines per record (a record with more is 400 naming " + code("expand") +
		": read them from their own list). The key needs the expanded register's read scope (else 403 " + code("insufficient_scope") + ")."
	for _, x := range r.Expansions {
		d.Expansions = append(d.Expansions, docsExpansionRow{Name: x.Name, Scope: x.Of.ReadScope, What: text(x.Note()) + " (" + registerLink(x.Of.Name) + ")"})
	}
	return d
}
