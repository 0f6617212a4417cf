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

// TestUpsert writes by key through the client: Upsert creates (New, the
// create's answer; for tasks its summary), then updates (Record); under
// WithCreateOnly it refuses a record that is there and under
// WithIfMatch(ctx, "*") one that is not, changing nothing.
func TestUpsert(t *testing.T) {
	apitest.Each(t, func(t *testing.T, b apitest.Backend) {
		is := is.New(t)
		_, c := start(t, b, runtime.Config{})
		ctx := context.Background()

		first, err := c.Customers.Upsert(ctx, "ERP-1", client.CustomerCreate{Name: client.Value("Synk AB")})
		is.NoErr(err)
		is.True(first.Created)
		is.Equal(first.New.Nr, "ERP-1")
		again, err := c.Customers.Upsert(ctx, "ERP-1", client.CustomerCreate{City: client.Value("Umeå")})
		is.NoErr(err)
		is.True(!again.Created)
		is.Equal(again.Record.City, "Umeå")
		is.Equal(again.Record.Name, "Synk AB")

		_, err = c.Customers.Upsert(client.WithCreateOnly(ctx), "ERP-1", client.CustomerCreate{City: client.Value("Kiruna")})
		is.True(errors.Is(err, client.ErrPreconditionFailed))
		_, err = c.Customers.Upsert(client.WithIfMatch(ctx, "*"), "ERP-2", client.CustomerCreate{Name: client.Value("Nej")})
		is.True(errors.Is(err, client.ErrPreconditionFailed))
		_, err = c.Customers.Get(ctx, "ERP-2")
		is.True(errors.Is(err, client.ErrNotFound))
		created, err := c.Customers.Upsert(client.WithCreateOnly(ctx), "ERP-3", client.CustomerCreate{Name: client.Value("Ny")})
		is.NoErr(err)
		is.True(created.Created)
		_, err = c.Customers.Update(client.WithCreateOnly(ctx), "ERP-3", client.CustomerUpdate{Name: client.Value("X")})
		is.True(err != nil) // create-only is for Upsert alone

		task, err := c.Tasks.Upsert(ctx, "SYNC-1", client.TaskCreate{CustomerNr: client.Value("ERP-1"), TaskText: client.Value("Synkad")})
		is.NoErr(err)
		is.True(task.Created)
		is.Equal(task.New.Nr, "SYNC-1") // the task's create summary
	})
}
