package client_test

import (
	"context"
	"errors"
	"testing"

	"github.com/matryer/is"

	"fieldapi/apitest"
	"fieldapi/client"
	"fieldapi/runtime"
)

// TestChangeLog reads the change log through the client: a customer's
// writes in Changes, newest first, with Limit and Action; a task's notes
// in Notes; an unknown record is ErrNotFound.
func TestChangeLog(t *testing.T) {
	apitest.Each(t, func(t *testing.T, b apitest.Backend) {
		is := is.New(t)
		_, c := start(t, b, runtime.Config{})
		ctx := context.Background()

		customer, err := c.Customers.Create(ctx, client.CustomerCreate{Name: client.Value("Ola Nordmann AS")})
		is.NoErr(err)
		_, err = c.Customers.Update(ctx, customer.Nr, client.CustomerUpdate{Phone: client.Value("+47 55 12 34 56"), City: client.Value("Bergen")})
		is.NoErr(err)
		changes, err := c.Customers.Changes(ctx, customer.Nr, client.ChangeParams{})
		is.NoErr(err)
		is.Equal(len(changes), 2)
		is.Equal(changes[0].Action, "update") // newest first
		is.Equal(changes[0].Detail, "City, Phone")
		is.Equal(changes[0].Sign, "API")
		is.True(changes[0].ClientID != "")
		is.True(changes[0].ViaAPI)
		at, err := changes[0].At.Time()
		is.NoErr(err)
		is.True(!at.IsZero())
		is.Equal(changes[1].Action, "create")

		newest, err := c.Customers.Changes(ctx, customer.Nr, client.ChangeParams{Limit: 1})
		is.NoErr(err)
		is.Equal(newest, changes[:1])
		creates, err := c.Customers.Changes(ctx, customer.Nr, client.ChangeParams{Action: "create"})
		is.NoErr(err)
		is.Equal(creates, changes[1:])
		none, err := c.Customers.Changes(ctx, customer.Nr, client.ChangeParams{Action: "status"})
		is.NoErr(err)
		is.Equal(none, []client.Change{}) // never nil

		task, err := c.Tasks.Create(ctx, client.TaskCreate{CustomerNr: client.Value(customer.Nr)})
		is.NoErr(err)
		notes, err := c.Tasks.Notes(ctx, task.Nr, 0)
		is.NoErr(err)
		is.Equal(notes, []client.Change{})
		for _, text := range []string{"Porten är låst", "Nyckel i receptionen"} {
			_, err = c.Tasks.AddNote(ctx, task.Nr, text)
			is.NoErr(err)
		}
		notes, err = c.Tasks.Notes(ctx, task.Nr, 0)
		is.NoErr(err)
		is.Equal(len(notes), 2)
		is.Equal(notes[0].Action, "note")
		is.Equal(notes[0].Detail, "Nyckel i receptionen")
		is.Equal(notes[1].Detail, "Porten är låst")
		latest, err := c.Tasks.Notes(ctx, task.Nr, 1)
		is.NoErr(err)
		is.Equal(latest, notes[:1])

		_, err = c.Tasks.Notes(ctx, "99999", 0)
		is.True(errors.Is(err, client.ErrNotFound))
		_, err = c.Customers.Changes(ctx, "NO-SUCH", client.ChangeParams{})
		is.True(errors.Is(err, client.ErrNotFound))
		_, err = c.Customers.Changes(ctx, customer.Nr, client.ChangeParams{Limit: -1}) // sends nothing: the default
		is.NoErr(err)
	})
}
