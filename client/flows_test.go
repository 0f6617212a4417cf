package client_test

import (
	"context"
	"errors"
	"io"
	"slices"
	"strings"
	"testing"

	"github.com/matryer/is"

	"fieldapi/apitest"
	"fieldapi/client"
	"fieldapi/runtime"
)

// TestReadmeFlows runs the README's curl walkthroughs through the client
// against the real server: a customer with contacts, a task with lines,
// status, a note read back, assignees, a document and a position, a quote whose line
// is changed, an order with lines, lines of quantity 0, a standalone
// booking, and refusals as typed problems. (The webhook walkthrough, with
// fieldapi listen, is cmd/fieldapi's TestListenPrintsWhatServeDelivers.)
func TestReadmeFlows(t *testing.T) {
	apitest.Each(t, func(t *testing.T, b apitest.Backend) {
		_, c := start(t, b, runtime.Config{})
		ctx := context.Background()

		t.Run("customer with contacts", func(t *testing.T) {
			is := is.New(t)
			customer, err := c.Customers.Create(ctx, client.CustomerCreate{
				Name: client.Value("Ola Nordmann AS"), City: client.Value("Bergen"), Note: client.Value("gate code 1234"),
				Contacts: []client.CustomerContactLine{{Name: client.Value("Kari Nordmann"), Email: client.Value("kari@example.no")}},
			})
			is.NoErr(err)
			is.True(customer.Nr != "")
			is.Equal(customer.Status, "Active")
			contacts, err := c.Contacts.List(ctx, client.ContactListParams{CustomerNr: customer.Nr})
			is.NoErr(err)
			is.Equal(len(contacts.Items), 1)
			is.Equal(contacts.Items[0].Email, "kari@example.no")

			// phone set, city left (null), note cleared (""), the rest unset
			changed, err := c.Customers.Update(ctx, customer.Nr, client.CustomerUpdate{
				Phone: client.Value("+47 55 12 34 56"), City: client.Null[string](), Note: client.Value(""),
			})
			is.NoErr(err)
			is.Equal(changed.Phone, "+47 55 12 34 56")
			is.Equal(changed.City, "Bergen")
			is.Equal(changed.Note, "")
			is.Equal(changed.Name, "Ola Nordmann AS")
		})

		t.Run("task with lines, status, note, assignees and a document", func(t *testing.T) {
			is := is.New(t)
			created, err := c.Tasks.Create(ctx, client.TaskCreate{
				CustomerNr: client.Value("1031"), TaskText: client.Value("Årsservice värmepump"),
				Status: client.Value("Sent"), UserSigns: client.Value([]string{"ANLI"}), PriceListNr: client.Value("2"),
				PlanStartDate: client.Value(client.Date("2026-05-04T08:00:00")), PlanStopDate: client.Value(client.Date("2026-05-04T12:00:00")),
				ExtraFields: client.Value(map[string]string{"Visit.Type": "Service"}),
				Materials:   []client.TaskMaterialLine{{ProductNr: client.Value("4025"), Quantity: client.Value(1.0)}},
				Times:       []client.TaskTimeLine{{TimeType: client.Value("Resa, km/dag"), Hours: client.Value(34.0)}},
			})
			is.NoErr(err)
			is.Equal(created.Status, "Sent")
			is.Equal(len(created.Materials), 1)
			is.Equal(created.Materials[0].ProductNr, "4025")
			is.Equal(created.Times[0].TimeType, "Resa, km/dag")
			nr := created.Nr

			task, err := c.Tasks.SetStatus(ctx, nr, "Received")
			is.NoErr(err)
			is.Equal(task.Status, "Received")
			_, err = c.Tasks.AddNote(ctx, nr, "Porten är låst, nyckel i receptionen")
			is.NoErr(err)
			notes, err := c.Tasks.Notes(ctx, nr, 0) // the note reads back
			is.NoErr(err)
			is.Equal(len(notes), 1)
			is.Equal(notes[0].Detail, "Porten är låst, nyckel i receptionen")
			moves, err := c.Tasks.Changes(ctx, nr, client.ChangeParams{Action: "status"})
			is.NoErr(err)
			is.Equal(len(moves), 1) // Sent → Received; Sent itself was applied by the create
			is.Equal(moves[0].Detail, "Sent → Received")

			task, err = c.Tasks.Update(ctx, nr, client.TaskUpdate{UserSigns: client.Value([]string{"ANLI", "MASV"})})
			is.NoErr(err)
			is.Equal(task.AssigneeStatuses, map[string]string{"ANLI": "Received", "MASV": "Planned"})
			start, err := task.PlanStartDate.Time()
			is.NoErr(err)
			is.Equal(start.Hour(), 8)

			material, err := c.Tasks.AddMaterial(ctx, nr, client.TaskMaterialLine{ProductNr: client.Value("4025"), Quantity: client.Value(2.0)})
			is.NoErr(err)
			is.Equal(material.OwnerNr, nr)
			is.Equal(material.Quantity, 2.0)
			_, err = c.Tasks.AddTime(ctx, nr, client.TaskTimeLine{TimeType: client.Value("Resa, km/dag"), Hours: client.Value(10.0)})
			is.NoErr(err)
			task, err = c.Tasks.Get(ctx, nr)
			is.NoErr(err)
			is.Equal(len(task.Materials), 2)
			is.Equal(len(task.Times), 2)

			// A move the transition rules refuse: 422 with the allowed moves.
			_, err = c.Tasks.SetStatus(ctx, nr, "Archived")
			is.True(errors.Is(err, client.ErrRejected))
			var p *client.Problem
			is.True(errors.As(err, &p))
			is.Equal(p.Code, "command_failed")
			is.True(slices.Contains(p.ValidValues, "InProgress"))
			is.True(p.RequestID != "")

			doc, err := c.Tasks.UploadDocument(ctx, nr, "notes.txt", strings.NewReader("Filter bytt"))
			is.NoErr(err)
			is.Equal(doc.Name, "notes.txt")
			docs, err := c.Tasks.ListDocuments(ctx, nr)
			is.NoErr(err)
			is.Equal(len(docs), 1) // the task's own document
			is.True(slices.ContainsFunc(docs, func(d client.DocumentInfo) bool { return d.ID == doc.ID && d.Name == "notes.txt" }))
			content, err := c.Tasks.DownloadDocument(ctx, nr, doc.ID)
			is.NoErr(err)
			data, err := io.ReadAll(content.Body)
			content.Body.Close()
			is.NoErr(err)
			is.Equal(string(data), "Filter bytt")
			is.Equal(content.FileName, "notes.txt")
			is.True(strings.HasPrefix(content.ContentType, "text/plain"))

			_, err = c.Tasks.DownloadDocument(ctx, nr, doc.ID+1000)
			is.True(errors.Is(err, client.ErrNotFound))

			// Demo task 10001's report, an html template, downloads as a PDF.
			report, err := c.Tasks.DownloadDocument(ctx, "10001", 5)
			is.NoErr(err)
			report.Body.Close()
			is.Equal(report.ContentType, "application/pdf")
			is.Equal(report.FileName, "Servicerapport.pdf")

			loc, err := c.Tasks.Location(ctx, nr, client.LocateOptions{Locate: true})
			is.NoErr(err)
			is.True(loc.Status != "")
			pinned, err := c.Tasks.PinLocation(ctx, nr, client.Pin{Latitude: 60.39, Longitude: 5.32, Address: "Bergen"})
			is.NoErr(err)
			is.True(pinned.Fixed)
		})

		t.Run("a failing line is named", func(t *testing.T) {
			is := is.New(t)
			_, err := c.Quotes.Create(ctx, client.QuoteCreate{
				CustomerNr: client.Value("1001"),
				Times: []client.QuoteTimeLine{
					{TimeType: client.Value("Normaltid"), Hours: client.Value(1.0)},
					{TimeType: client.Value("Resa"), Hours: client.Value(1.0)},
				},
			})
			var p *client.Problem
			is.True(errors.As(err, &p))
			is.Equal(p.Status, 422)
			is.Equal(p.Line, "times[1]")
			is.True(slices.Contains(p.ValidValues, "Normaltid"))
		})

		t.Run("quote with lines, one of them changed", func(t *testing.T) {
			is := is.New(t)
			quote, err := c.Quotes.Create(ctx, client.QuoteCreate{
				CustomerNr: client.Value("1001"), Object1Nr: client.Value("101"), Description: client.Value("Byte av värmepump"),
				Materials: []client.QuoteMaterialLine{{ProductNr: client.Value("4001"), Quantity: client.Value(1.0), Price: client.Value(98500.0)}},
				Times: []client.QuoteTimeLine{
					{TimeType: client.Value("Normaltid"), Hours: client.Value(16.0), UserSign: client.Value("ANLI")},
					{TimeType: client.Value("Resa, km/dag"), Hours: client.Value(60.0)},
				},
			})
			is.NoErr(err)
			is.Equal(quote.Status, "Open")
			is.Equal(quote.Object1Name, "Fastigheten Bergström")
			times, err := c.Times.List(ctx, client.TimeListParams{OwnerType: "quote", OwnerNr: quote.Nr})
			is.NoErr(err)
			is.Equal(len(times.Items), 2)
			materials, err := c.Materials.List(ctx, client.MaterialListParams{OwnerType: "quote", OwnerNr: quote.Nr})
			is.NoErr(err)
			is.Equal(len(materials.Items), 1)

			// The README picks the line to change by its user sign: ANLI's Normaltid line, and only it.
			anli, err := c.Times.List(ctx, client.TimeListParams{OwnerType: "quote", OwnerNr: quote.Nr, UserSign: "ANLI"})
			is.NoErr(err)
			is.Equal(len(anli.Items), 1)
			is.Equal(anli.Items[0].TimeType, "Normaltid")
			line, err := c.Times.Update(ctx, anli.Items[0].Id, client.TimeUpdate{Hours: client.Value(14.0)})
			is.NoErr(err)
			is.Equal(line.Hours, 14.0)
			is.Equal(line.OwnerType, "quote") // the quote's line, not another owner's
			is.Equal(line.OwnerNr, quote.Nr)
		})

		t.Run("order with lines", func(t *testing.T) {
			is := is.New(t)
			order, err := c.Orders.Create(ctx, client.OrderCreate{
				CustomerNr: client.Value("1001"), SupplierNr: client.Value("203"), DeliveryDate: client.Value(client.Date("2026-12-15")),
				Note: client.Value("Enligt offert 20007"),
				Lines: []client.OrderLineInput{
					{ProductNr: client.Value("4001"), Quantity: client.Value(1.0), Price: client.Value(98500.0), DiscountPct: client.Value(5.0)},
					{ProductNr: client.Value("4004"), Quantity: client.Value(3.0), Price: client.Value(890.0)},
					{ProductNr: client.Value("4018"), Quantity: client.Value(2.0), SupplierNr: client.Value("202")},
				},
			})
			is.NoErr(err)
			is.Equal(order.Status, "Planned")
			is.Equal(len(order.Lines), 3)
			is.Equal(order.Lines[2].SupplierNr, "202")
			is.Equal(order.Lines[1].DeliveryDate, client.Date("2026-12-15")) // inherited

			added, err := c.Orders.AddLine(ctx, order.Nr, client.OrderLineInput{ProductNr: client.Value("4028"), Quantity: client.Value(1.0)})
			is.NoErr(err)
			is.Equal(added.OrderNr, order.Nr)
			line, err := c.OrderLines.Update(ctx, added.Id, client.OrderLineUpdate{Price: client.Value(495.0), DiscountPct: client.Value(10.0)})
			is.NoErr(err)
			is.Equal(line.TotalPrice, 445.5)
			lines, err := c.OrderLines.List(ctx, client.OrderLineListParams{OrderNr: order.Nr})
			is.NoErr(err)
			is.Equal(len(lines.Items), 4)
		})

		t.Run("lines with quantity 0 are listed only when asked", func(t *testing.T) {
			is := is.New(t)
			// Demo order 30005's mileage line stands at quantity 0.
			shown, err := c.OrderLines.List(ctx, client.OrderLineListParams{OrderNr: "30005"})
			is.NoErr(err)
			all, err := c.OrderLines.List(ctx, client.OrderLineListParams{OrderNr: "30005", IncludeZeroQuantity: true})
			is.NoErr(err)
			is.Equal(len(shown.Items), 2)
			is.Equal(len(all.Items), 3)
			is.Equal(all.Items[0].ProductName, "Körersättning") // newest first
			is.Equal(all.Items[0].Quantity, 0.0)
		})

		t.Run("standalone booking", func(t *testing.T) {
			is := is.New(t)
			booking, err := c.Times.Create(ctx, client.TimeCreate{
				TimeType: client.Value("Semester"), UserSign: client.Value("ANLI"),
				Date: client.Value(client.Date("2027-07-05T00:00:00")), StopDate: client.Value(client.Date("2027-07-24T00:00:00")),
				Hours: client.Value(15.0), Spec: client.Value("Sommarsemester"),
			})
			is.NoErr(err)
			is.Equal(booking.OwnerNr, "")
			is.Equal(booking.StopDate, client.Date("2027-07-24T00:00:00")) // as sent
			found := false
			for rec, err := range c.Times.All(ctx, client.TimeListParams{OwnerType: "none", UserSign: "ANLI", Limit: 2}) {
				is.NoErr(err)
				found = found || rec.Id == booking.Id
			}
			is.True(found)
		})
	})
}
