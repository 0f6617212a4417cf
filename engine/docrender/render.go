// Package docrender produces the content of the documents an engine keeps
// without their bytes: html templates and record prints, rendered as PDFs,
// and link documents, fetched from the local path or URL they point to.
package docrender

import (
	"bytes"
	"fmt"
	"html"
	"maps"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/go-pdf/fpdf"

	"fieldapi/catalog"
	"fieldapi/engine"
)

// Documents are rendered as PDFs (spec 4.3 rule 9): a title and readable
// lines of text, on A4 pages, with go-pdf/fpdf. The core fonts cover
// Windows-1252, which holds the Nordic letters; a character outside it
// prints as a dot.

// HTML renders an html template as a PDF: its {{Field}} and
// {{ExtraFields.Key}} placeholders are filled from the record, then its
// text is laid out. at dates the document (its last change), so the same
// document renders the same bytes.
func HTML(title, template string, rec engine.Record, at time.Time) ([]byte, error) {
	return PDF(title, htmlLines(fillTemplate(template, rec)), at)
}

// Print renders a print of the record as a PDF: "Field: value" lines in
// the register's catalog order, then its extra fields, skipping empty
// values.
func Print(title string, reg *catalog.Register, rec engine.Record, at time.Time) ([]byte, error) {
	return PDF(title, recordLines(reg, rec), at)
}

// Line is one line of a rendered document.
type Line struct {
	Text    string
	Heading bool
}

// PDF lays out a title and lines as a PDF. at dates the document, so the
// same document renders the same bytes.
func PDF(title string, lines []Line, at time.Time) ([]byte, error) {
	pdf := fpdf.New("P", "mm", "A4", "")
	pdf.SetCreationDate(at)
	pdf.SetModificationDate(at)
	pdf.SetCatalogSort(true) // resources in a fixed order, not map order
	pdf.SetTitle(title, true)
	pdf.SetCreator("fieldapi reference engine", true)
	pdf.SetMargins(20, 20, 20)
	pdf.SetAutoPageBreak(true, 20)
	pdf.AddPage()
	cp1252 := pdf.UnicodeTranslatorFromDescriptor("")

	pdf.SetFont("Helvetica", "B", 16)
	pdf.MultiCell(0, 8, cp1252(title), "", "L", false)
	pdf.Ln(4)
	for _, l := range lines {
		if l.Heading {
			pdf.Ln(2)
			pdf.SetFont("Helvetica", "B", 12)
			pdf.MultiCell(0, 6.5, cp1252(l.Text), "", "L", false)
			continue
		}
		pdf.SetFont("Helvetica", "", 10.5)
		pdf.MultiCell(0, 5.5, cp1252(l.Text), "", "L", false)
	}
	var out bytes.Buffer
	if err := pdf.Output(&out); err != nil {
		return nil, fmt.Errorf("render %q as PDF: %w", title, err)
	}
	return out.Bytes(), nil
}

// placeholder is {{Field}} or {{ExtraFields.Key}} in an HTML template.
var placeholder = regexp.MustCompile(`\{\{\s*([A-Za-z0-9_.]+)\s*\}\}`)

// fillTemplate replaces a template's placeholders with the record's values,
// HTML-escaped; an unknown name stays as it is.
func fillTemplate(src string, rec engine.Record) string {
	return placeholder.ReplaceAllStringFunc(src, func(m string) string {
		name := placeholder.FindStringSubmatch(m)[1]
		if key, ok := strings.CutPrefix(name, "ExtraFields."); ok {
			if v, ok := rec.Object("ExtraFields")[key]; ok {
				return html.EscapeString(v)
			}
			return m
		}
		v, ok := rec[name]
		if !ok {
			return m
		}
		return html.EscapeString(displayValue(v))
	})
}

// Tags whose text is not shown, that break lines, and that start headings.
var (
	hiddenTags  = map[string]bool{"script": true, "style": true, "head": true}
	blockTags   = map[string]bool{"br": true, "p": true, "div": true, "tr": true, "table": true, "ul": true, "ol": true, "hr": true, "section": true, "header": true, "footer": true, "article": true}
	headingTags = map[string]bool{"h1": true, "h2": true, "h3": true, "h4": true, "h5": true, "h6": true, "title": true}
)

// htmlLines turns HTML into readable lines: tags are stripped, block tags
// break lines, list items get bullets, table cells are separated, entities
// are decoded and runs of white space collapse. It is made for the
// engine's own templates, not arbitrary web pages.
func htmlLines(src string) []Line {
	var lines []Line
	var cur strings.Builder
	heading := false
	flush := func() {
		if text := strings.Join(strings.Fields(html.UnescapeString(cur.String())), " "); text != "" {
			lines = append(lines, Line{Text: text, Heading: heading})
		}
		cur.Reset()
		heading = false
	}
	for len(src) > 0 {
		text, rest, found := strings.Cut(src, "<")
		cur.WriteString(text)
		tag, rest, closed := strings.Cut(rest, ">")
		if !found || !closed {
			break // no tag left, or an unclosed one: the rest is not text
		}
		src = rest
		name, closing := tagName(tag)
		switch {
		case hiddenTags[name] && !closing:
			if i := strings.Index(strings.ToLower(src), "</"+name); i >= 0 {
				src = src[i:]
			} else {
				src = ""
			}
		case headingTags[name]:
			flush()
			heading = !closing
		case name == "li" && !closing:
			flush()
			cur.WriteString("• ")
		case name == "td" || name == "th":
			if closing {
				cur.WriteString("  |  ")
			}
		case blockTags[name] || name == "li":
			flush()
		}
	}
	flush()
	for i := range lines {
		lines[i].Text = strings.TrimSuffix(lines[i].Text, " |")
	}
	return lines
}

// tagName is the lower-case name of what is inside a tag's brackets
// ("/p", "br /", "td class=x"), and whether it closes an element.
func tagName(tag string) (name string, closing bool) {
	tag, closing = strings.CutPrefix(tag, "/")
	if end := strings.IndexAny(tag, " \t\r\n/"); end >= 0 {
		tag = tag[:end]
	}
	return strings.ToLower(tag), closing
}

// recordLines shows a record as "Field: value" lines, in catalog order,
// then its extra fields, skipping empty values: a print of the record.
func recordLines(reg *catalog.Register, rec engine.Record) []Line {
	var lines []Line
	for _, f := range reg.Fields {
		if f.Type == catalog.Object {
			continue
		}
		if v := displayValue(rec[f.Name]); v != "" {
			lines = append(lines, Line{Text: f.Name + ": " + v})
		}
	}
	extra := rec.Object("ExtraFields")
	keys := slices.DeleteFunc(slices.Sorted(maps.Keys(extra)), func(k string) bool { return extra[k] == "" })
	if len(keys) > 0 {
		lines = append(lines, Line{Text: "ExtraFields", Heading: true})
	}
	for _, k := range keys {
		lines = append(lines, Line{Text: k + ": " + extra[k]})
	}
	return lines
}

// displayValue is a field's value as text.
func displayValue(v any) string {
	switch x := v.(type) {
	case nil:
		return ""
	case string:
		return x
	case float64:
		return strconv.FormatFloat(x, 'f', -1, 64)
	case bool:
		return strconv.FormatBool(x)
	case []string:
		return strings.Join(x, ", ")
	}
	return ""
}
