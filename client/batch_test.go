package client_test

import (
	"context"
	"errors"
	"net/http"
	"testing"

	"github.com/matryer/is"

	"fieldapi/apitest"
	"fieldapi/client"
	"fieldapi/runtime"
)

// TestBatch: a customer, a task for it and a material line on the task in
// one atomic batch, read back typed; a failing atomic batch is the failed
// operation's problem and writes nothing; an independent batch answers
// every result, failures as typed problems.
func TestBatch(t *testing.T) {
	apitest.Each(t, func(t *testing.T, b apitest.Backend) {
		is := is.New(t)
		_, c := start(t, b, runtime.Config{})
		ctx := context.Background()

		batch := client.NewAtomicBatch()
		c1 := client.Add[client.Customer](batch, "c1", http.MethodPost, "/v1/customers", client.CustomerCreate{Name: client.Value("Batch Klient AS"), City: client.Value("Bergen")})
		t1 := client.Add[client.TaskCreated](batch, "t1", http.MethodPost, "/v1/tasks", client.TaskCreate{CustomerNr: client.Value(c1.Ref("Nr")), TaskText: client.Value("for " + c1.Ref("Name"))})
		m1 := client.Add[client.Material](batch, "m1", http.MethodPost, client.BatchPath("/v1/tasks", t1.Ref("nr"), "materials"),
			client.TaskMaterialLine{ProductNr: client.Value("4025"), Quantity: client.Value(2.0)})
		results, err := c.Batch(ctx, batch)
		is.NoErr(err)
		customer, err := c1.Result(results)
		is.NoErr(err)
		created, err := t1.Result(results)
		is.NoErr(err)
		line, err := m1.Result(results)
		is.NoErr(err)
		is.Equal(line.Quantity, 2.0)
		task, err := c.Tasks.Get(ctx, created.Nr)
		is.NoErr(err)
		is.Equal(task.CustomerNr, customer.Nr)
		is.Equal(task.TaskText, "for Batch Klient AS")
		is.Equal(len(task.Materials), 1)

		failing := client.NewAtomicBatch()
		client.Add[client.Customer](failing, "c1", http.MethodPost, "/v1/customers", client.CustomerCreate{Name: client.Value("Never Written AS")})
		client.Add[client.TaskCreated](failing, "t1", http.MethodPost, "/v1/tasks", client.TaskCreate{CustomerNr: client.Value("no-such-customer")})
		_, err = c.Batch(ctx, failing)
		var p *client.Problem
		is.True(errors.As(err, &p))
		is.True(errors.Is(err, client.ErrRejected))
		is.Equal(p.OperationID, "t1")
		is.Equal(p.OperationIndex, 1)
		page, err := c.Customers.List(ctx, client.CustomerListParams{Name: "Never Written AS"})
		is.NoErr(err)
		is.Equal(len(page.Items), 0)

		independent := client.NewBatch()
		ok := client.Add[client.Customer](independent, "ok", http.MethodPost, "/v1/customers", client.CustomerCreate{Name: client.Value("Independent Klient AS")})
		bad := client.Add[client.Customer](independent, "bad", http.MethodPatch, client.BatchPath("/v1/customers", "no/such"), client.CustomerUpdate{City: client.Value("Oslo")})
		results, err = c.Batch(ctx, independent)
		is.NoErr(err)
		_, err = ok.Result(results)
		is.NoErr(err)
		_, err = bad.Result(results)
		is.True(errors.Is(err, client.ErrNotFound))
	})
}
