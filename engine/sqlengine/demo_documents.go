package sqlengine

import (
	"bytes"
	"image"
	"image/color"
	"image/png"
	"os"
	"path/filepath"
)

// The demo tasks' documents: photos and measurement notes stored in the
// engine, a link to a service manual on disk, a link to a drawing on a
// file server that cannot be reached, a service report template (html)
// and a print of the task (other). The first task has one of each.

// demoDocuments are the documents of demo task number i.
func (l demoLocale) demoDocuments(i int, manual string) []document {
	var docs []document
	if i%5 == 0 {
		docs = append(docs, document{Name: l.text("Foto före.png", "Foto før.png"), DocType: "PNG", Kind: docEmbedded, Content: demoPhoto(i)})
	}
	if i == 0 || i%7 == 1 {
		docs = append(docs, document{Name: l.text("Mätprotokoll.txt", "Måleprotokoll.txt"), DocType: "TXT", Kind: docEmbedded, Internal: true,
			Content: []byte(l.text("Tillopp 45 °C, retur 38 °C, högtryck 24 bar, lågtryck 7 bar.\n", "Tur 45 °C, retur 38 °C, høytrykk 24 bar, lavtrykk 7 bar.\n"))})
	}
	if i == 0 || i%8 == 2 {
		// No extension: the download names the file after its content.
		docs = append(docs, document{Name: l.text("Servicehandbok NIBE F1255", "Servicehåndbok NIBE F1255"), DocType: "Manual", Kind: docLink, LinkPath: manual})
	}
	if i == 0 || i%8 == 3 {
		docs = append(docs, document{Name: l.text("Planritning.pdf", "Plantegning.pdf"), DocType: "Drawing", Kind: docLink,
			LinkPath: `\\filserver\ritningar\` + l.id + `\planritning.pdf`})
	}
	if i%6 == 0 || i%6 == 2 {
		docs = append(docs, document{Name: l.text("Servicerapport", "Servicerapport"), DocType: "Report", Kind: docHTML,
			HTML: l.text(serviceReportSV, serviceReportNO)})
	}
	if i == 0 || i%9 == 4 {
		docs = append(docs, document{Name: l.text("Arbetsorder (utskrift)", "Arbeidsordre (utskrift)"), DocType: "PrintTemplate", Kind: docOther, Internal: true})
	}
	return docs
}

// demoPhoto is a small PNG that differs from task to task.
func demoPhoto(i int) []byte {
	img := image.NewRGBA(image.Rect(0, 0, 48, 32))
	for x := range 48 {
		for y := range 32 {
			img.Set(x, y, color.RGBA{R: uint8(x * 5), G: uint8(y * 7), B: uint8(40 * (i % 6)), A: 255})
		}
	}
	var buf bytes.Buffer
	_ = png.Encode(&buf, img) // encoding an in-memory RGBA image does not fail
	return buf.Bytes()
}

// writeDemoManual writes the service manual the demo's link documents
// point to, under the system's temporary directory, and returns its path.
// It is written on every demo load, so the link works again after the
// directory was cleaned; the rename makes parallel loads safe.
func writeDemoManual() (string, error) {
	dir := filepath.Join(os.TempDir(), "fieldapi-demo")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", err
	}
	path := filepath.Join(dir, "servicehandbok-nibe-f1255.txt")
	tmp, err := os.CreateTemp(dir, ".manual-*")
	if err != nil {
		return "", err
	}
	defer os.Remove(tmp.Name()) // gone after the rename; cleans up on failure
	if _, err := tmp.WriteString(demoManual); err != nil {
		tmp.Close()
		return "", err
	}
	if err := tmp.Close(); err != nil {
		return "", err
	}
	if err := os.Chmod(tmp.Name(), 0o644); err != nil {
		return "", err
	}
	return path, os.Rename(tmp.Name(), path)
}

const demoManual = `NIBE F1255 – Servicehandbok / Servicehåndbok

1. Årlig kontroll / Årlig kontroll
   - Rengör smutsfilter / Rengjør smussfilter
   - Kontrollera köldmedietryck / Kontroller kuldemedietrykk
   - Kontrollera säkerhetsventil / Kontroller sikkerhetsventil

2. Larmkoder / Alarmkoder
   HP-larm: kontrollera flöde och filter / kontroller strømning og filter
   LP-larm: läcksök köldmediekretsen / lekkasjesøk kuldemediekretsen
`

// The service report templates: the engine fills {{Field}} placeholders
// from the task when it renders the PDF.
const (
	serviceReportSV = `<html><head><title>Servicerapport</title><style>body { font-family: sans-serif }</style></head>
<body>
<h1>Servicerapport {{Nr}}</h1>
<p>Kund: {{CustomerName}} ({{CustomerNr}})</p>
<p>Uppdrag: {{TaskText}}</p>
<p>Utfört: {{ActionText}}</p>
<h2>Kontrollpunkter</h2>
<ul><li>Filter kontrollerat</li><li>Köldmedietryck avläst</li><li>Larmfunktion provad</li></ul>
<table>
<tr><th>Planerat</th><td>{{PlanStartDate}} &ndash; {{PlanStopDate}}</td></tr>
<tr><th>Besökstyp</th><td>{{ExtraFields.Visit.Type}}</td></tr>
<tr><th>Tekniker</th><td>{{UserSigns}}</td></tr>
</table>
<p>Kundens signatur: ____________________</p>
</body></html>`
	serviceReportNO = `<html><head><title>Servicerapport</title></head>
<body>
<h1>Servicerapport {{Nr}}</h1>
<p>Kunde: {{CustomerName}} ({{CustomerNr}})</p>
<p>Oppdrag: {{TaskText}}</p>
<p>Utført: {{ActionText}}</p>
<h2>Kontrollpunkter</h2>
<ul><li>Filter kontrollert</li><li>Kuldemedietrykk avlest</li><li>Alarmfunksjon testet</li></ul>
<table>
<tr><th>Planlagt</th><td>{{PlanStartDate}} &ndash; {{PlanStopDate}}</td></tr>
<tr><th>Besøkstype</th><td>{{ExtraFields.Visit.Type}}</td></tr>
<tr><th>Tekniker</th><td>{{UserSigns}}</td></tr>
</table>
<p>Kundens signatur: ____________________</p>
</body></html>`
)
